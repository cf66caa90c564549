/* onnx.js - writes small ONNX models (protobuf bytes) by hand for onnxruntime-web: no model
   downloads, no protobuf library. Only the fields ONNX Runtime needs are encoded:
   ModelProto{ir_version, opset_import, graph}, GraphProto{node, initializer, input, output}. */
'use strict';

/* ---- protobuf wire format: varints, length-delimited fields, fixed32 floats ---- */
function varint(n) {
  const out = [];
  let v = BigInt.asUintN(64, BigInt(n));   /* negatives: two's complement, 10 bytes */
  do {
    let byte = Number(v & 0x7fn);
    v >>= 7n;
    if (v > 0n) byte |= 0x80;
    out.push(byte);
  } while (v > 0n);
  return out;
}
const key = (field, wire) => varint((field << 3) | wire);
const fInt = (field, n) => Buffer.from([...key(field, 0), ...varint(n)]);
const fBytes = (field, bytes) =>
  Buffer.concat([Buffer.from([...key(field, 2), ...varint(bytes.length)]), Buffer.from(bytes)]);
const fStr = (field, s) => fBytes(field, Buffer.from(s, 'utf8'));
const fFloat = (field, x) => {
  const b = Buffer.alloc(4);
  b.writeFloatLE(x);
  return Buffer.concat([Buffer.from(key(field, 5)), b]);
};
const cat = (parts) => Buffer.concat(parts.filter(Boolean));

const FLOAT = 1, INT64 = 7;

/* TensorProto: dims (1), data_type (2), name (8), raw_data (9). */
function tensor(name, dims, data, type = FLOAT) {
  const raw = type === FLOAT ? Buffer.from(Float32Array.from(data).buffer)
    : Buffer.from(BigInt64Array.from(data.map(BigInt)).buffer);
  return cat([...dims.map((d) => fInt(1, d)), fInt(2, type), fStr(8, name), fBytes(9, raw)]);
}

/* ValueInfoProto{name, type: TypeProto{tensor_type{elem_type, shape{dim{dim_value}}}}}. */
function valueInfo(name, dims) {
  const shape = cat(dims.map((d) => fBytes(1, fInt(1, d))));
  const tensorType = cat([fInt(1, FLOAT), fBytes(2, shape)]);
  return cat([fStr(1, name), fBytes(2, fBytes(1, tensorType))]);
}

/* AttributeProto: name (1), f (2), i (3), ints (8), type (20): FLOAT 1, INT 2, INTS 7. */
function attribute(name, value) {
  if (Array.isArray(value)) return cat([fStr(1, name), ...value.map((v) => fInt(8, v)), fInt(20, 7)]);
  if (Number.isInteger(value)) return cat([fStr(1, name), fInt(3, value), fInt(20, 2)]);
  return cat([fStr(1, name), fFloat(2, value), fInt(20, 1)]);
}

/* NodeProto: input (1), output (2), name (3), op_type (4), attribute (5), domain (7). */
function node(op, inputs, outputs, attrs = {}, domain = '') {
  return cat([...inputs.map((s) => fStr(1, s)), ...outputs.map((s) => fStr(2, s)),
    fStr(3, `${op}_${outputs[0]}`), fStr(4, op),
    ...Object.entries(attrs).map(([k, v]) => fBytes(5, attribute(k, v))),
    domain ? fStr(7, domain) : null]);
}

/* A model: nodes, initializers [{name, dims, data, type}], inputs/outputs [{name, dims}]. */
function model({ nodes, initializers = [], inputs, outputs, opset = 17 }) {
  const graph = cat([...nodes.map((n) => fBytes(1, n)), fStr(2, 'bench'),
    ...initializers.map((t) => fBytes(5, tensor(t.name, t.dims, t.data, t.type))),
    ...inputs.map((v) => fBytes(11, valueInfo(v.name, v.dims))),
    ...outputs.map((v) => fBytes(12, valueInfo(v.name, v.dims)))]);
  const opsetId = cat([fStr(1, ''), fInt(2, opset)]);
  return new Uint8Array(cat([fInt(1, 8), fStr(2, 'blocklens-bench'), fBytes(7, graph),
    fBytes(8, opsetId)]));
}

module.exports = { model, node, FLOAT, INT64 };
