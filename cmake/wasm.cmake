# The wasm module: the engine plus src/wasm_abi.c, wrapped by the scripts in web/src/engine/ into
# one classic script that loads in Node (require) and in a browser (<script>, also from file://).
# Two builds of the same C go into that one file: the SIMD one (BlockLensCore, -msimd128, with
# an FMA kernel the loader switches on or patches out) and a scalar one (BlockLensCoreScalar)
# for runtimes without wasm SIMD; load() picks by feature detection. The scalar factory is built
# first and prepended inside the wrapper's scope (--extern-pre-js), so neither factory becomes a
# page global.
set(BL_EXPORTS
  _malloc _free _bl_status_string _bl_rng_seed _bl_rng_uniform_f64 _bl_rng_normal_f64
  _bl_rng_normal_f32 _bl_linear_forward _bl_activation_apply _bl_ffn_forward
  _bl_attention_forward _bl_attention_workspace_size _bl_layernorm_forward
  _bl_rmsnorm_forward _bl_batchnorm_forward _bl_block_forward _bl_block_workspace_size
  _bl_moe_forward _bl_moe_workspace_size _bl_decoder_forward _bl_decoder_workspace_size
  _bl_llama_forward _bl_llama_workspace_size _bl_llama_lens _bl_llama_lens_workspace_size
  _bl_decoder_lens _bl_decoder_lens_workspace_size _bl__first_nonfinite_16
  _bl_preset_count _bl_preset_name _bl_config_param_count _bl__abi_layout _bl__abi_layout_names
  _bl__param_count_f64 _bl__preset_f64 _bl__first_nonfinite _bl__first_nonfinite_of _bl__set_fma
  _bl__heap_room _bl__train_layout _bl__train_run _bl__train_update)
list(JOIN BL_EXPORTS "," BL_EXPORTS_CSV)

set(BL_WASM_LINK_OPTIONS
  -O3
  -sMODULARIZE=1
  -sSINGLE_FILE=1                       # wasm inlined: works from file://
  -sENVIRONMENT=web,worker,node
  -sALLOW_MEMORY_GROWTH=1 -sMAXIMUM_MEMORY=4294967296
  -sABORTING_MALLOC=0                   # malloc returns NULL; the wrapper throws an Error
  -sFILESYSTEM=0
  -sEXPORTED_FUNCTIONS=${BL_EXPORTS_CSV}
  -sEXPORTED_RUNTIME_METHODS=UTF8ToString,stringToUTF8,lengthBytesUTF8)

# The scalar build: an intermediate file in the build tree, never loaded on its own.
add_executable(blocklens_scalar ${BL_SOURCES} src/wasm_abi.c)
target_include_directories(blocklens_scalar PRIVATE include)
target_compile_options(blocklens_scalar PRIVATE -O3)
target_link_options(blocklens_scalar PRIVATE ${BL_WASM_LINK_OPTIONS}
  -sEXPORT_NAME=BlockLensCoreScalar)
set_target_properties(blocklens_scalar PROPERTIES SUFFIX ".js")
set(BL_SCALAR_JS ${CMAKE_CURRENT_BINARY_DIR}/blocklens_scalar.js)

find_program(BL_NODE node REQUIRED)

set(BL_DIST ${CMAKE_SOURCE_DIR}/web/dist)
# The wrapper's files (relinked when one changes): engine-pre.js, then these in the order they
# are appended; at its top level a file uses only names from the files before it. Argument
# checks, heap addresses (unsigned: the heap reaches 4 GiB), the struct layout read from the
# module, the Engine, a call's heap layout, running a call, the calls, the format readers and
# sources, GPT-2, the Llama family, trained models, folders, load() and the export.
set(BL_ENGINE_DIR ${CMAKE_SOURCE_DIR}/web/src/engine)
set(BL_ENGINE_POST_JS engine-check.js engine-heap.js engine-abi.js engine.js engine-layout.js
  engine-run.js engine-weights.js engine-ffn.js engine-attention.js engine-block.js engine-safetensors.js
  engine-source.js
  engine-vocab.js engine-hooks.js engine-gpt2.js engine-llama.js engine-model.js engine-folder.js
  engine-train-text.js engine-train.js engine-load.js engine-post.js)
list(TRANSFORM BL_ENGINE_POST_JS PREPEND ${BL_ENGINE_DIR}/)
set(BL_ENGINE_JS ${BL_ENGINE_DIR}/engine-pre.js ${BL_ENGINE_POST_JS})
set(BL_ENGINE_POST_FLAGS ${BL_ENGINE_POST_JS})
list(TRANSFORM BL_ENGINE_POST_FLAGS PREPEND "SHELL:--extern-post-js ")
add_executable(blocklens_core ${BL_SOURCES} src/wasm_abi.c)
target_include_directories(blocklens_core PRIVATE include)
if(BL_WASM_SIMD)
  # SIMD, plus relaxed-SIMD fused multiply-add in the GEMM kernel for large products, switched
  # on by the loader (bl__set_fma) where the runtime validates relaxed SIMD (Chromium; Node 20
  # with --experimental-wasm-relaxed-simd); elsewhere the loader replaces each FMA instruction
  # by v128.bitselect + nop (same shape) at the offsets the step below writes into the file.
  # clang 14 emits the prototype FMA opcode, which tools/relax.js rewrites to the standard one.
  target_compile_options(blocklens_core PRIVATE -msimd128 -mrelaxed-simd -DBL_FMA)
  add_custom_command(TARGET blocklens_core POST_BUILD
    COMMAND ${BL_NODE} ${CMAKE_SOURCE_DIR}/tools/relax.js --fill-sites
            ${BL_DIST}/blocklens.js ${BL_DIST}/blocklens.js
    COMMENT "Rewriting relaxed-SIMD opcodes to the standard encoding")
endif()
target_compile_options(blocklens_core PRIVATE -O3)
target_link_options(blocklens_core PRIVATE ${BL_WASM_LINK_OPTIONS}
  -sEXPORT_NAME=BlockLensCore
  "SHELL:--extern-pre-js ${BL_ENGINE_DIR}/engine-pre.js"   # SHELL: keeps the repeated
  "SHELL:--extern-pre-js ${BL_SCALAR_JS}"                            # flag (CMake dedups options)
  ${BL_ENGINE_POST_FLAGS})
add_dependencies(blocklens_core blocklens_scalar)
set_target_properties(blocklens_core PROPERTIES
  OUTPUT_NAME blocklens SUFFIX ".js" RUNTIME_OUTPUT_DIRECTORY ${BL_DIST}
  LINK_DEPENDS "${BL_ENGINE_JS};${BL_SCALAR_JS}")
