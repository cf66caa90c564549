# The wasm module: the engine plus src/wasm_abi.c, wrapped by web/js/engine.js into one
# classic script that loads in Node (require) and in a browser (<script>, also from file://).
# Two builds of the same C go into that one file: the SIMD one (BlockLensCore, -msimd128) and
# a scalar one (BlockLensCoreScalar) for runtimes without wasm SIMD; load() picks one by
# feature detection. The scalar factory is built first and prepended inside the wrapper's
# scope (--extern-pre-js), so neither factory becomes a page global.
set(BL_EXPORTS
  _malloc _free _bl_status_string _bl_rng_seed _bl_rng_uniform_f64 _bl_rng_normal_f64
  _bl_rng_normal_f32 _bl_linear_forward _bl_activation_apply _bl_ffn_forward
  _bl_attention_forward _bl_attention_workspace_size _bl_layernorm_forward
  _bl_rmsnorm_forward _bl_batchnorm_forward _bl_block_forward _bl_block_workspace_size
  _bl_preset_count _bl_preset_name _bl_config_param_count _bl__abi_sizes
  _bl__param_count_f64 _bl__preset_f64 _bl__first_nonfinite _bl__first_nonfinite_of)
list(JOIN BL_EXPORTS "," BL_EXPORTS_CSV)

set(BL_WASM_LINK_OPTIONS
  -O3
  -sMODULARIZE=1
  -sSINGLE_FILE=1                       # wasm inlined: works from file://
  -sENVIRONMENT=web,worker,node
  -sALLOW_MEMORY_GROWTH=1 -sMAXIMUM_MEMORY=2147483648
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

# The FMA build: SIMD plus relaxed-SIMD fused multiply-add in the GEMM kernel (large products
# only, see src/matmul.c), for runtimes that validate relaxed SIMD (Chromium; Node 20 behind
# --experimental-wasm-relaxed-simd). clang 14 emits the prototype opcode, which tools/relax.js
# rewrites to the standard one after linking; the build fails if it cannot.
find_program(BL_NODE node REQUIRED)
add_executable(blocklens_fma ${BL_SOURCES} src/wasm_abi.c)
target_include_directories(blocklens_fma PRIVATE include)
target_compile_options(blocklens_fma PRIVATE -O3 -msimd128 -mrelaxed-simd -DBL_FMA)
target_link_options(blocklens_fma PRIVATE ${BL_WASM_LINK_OPTIONS}
  -sEXPORT_NAME=BlockLensCoreFma)
set_target_properties(blocklens_fma PROPERTIES SUFFIX ".js")
set(BL_FMA_JS ${CMAKE_CURRENT_BINARY_DIR}/blocklens_fma.standard.js)
add_custom_command(OUTPUT ${BL_FMA_JS}
  COMMAND ${BL_NODE} ${CMAKE_SOURCE_DIR}/tools/relax.js
          ${CMAKE_CURRENT_BINARY_DIR}/blocklens_fma.js ${BL_FMA_JS}
  DEPENDS blocklens_fma ${CMAKE_SOURCE_DIR}/tools/relax.js
  COMMENT "Rewriting the FMA build's relaxed-SIMD opcodes to the standard encoding")
add_custom_target(blocklens_fma_standard DEPENDS ${BL_FMA_JS})

set(BL_DIST ${CMAKE_SOURCE_DIR}/web/dist)
add_executable(blocklens_core ${BL_SOURCES} src/wasm_abi.c)
target_include_directories(blocklens_core PRIVATE include)
if(BL_WASM_SIMD)
  target_compile_options(blocklens_core PRIVATE -msimd128)
endif()
target_compile_options(blocklens_core PRIVATE -O3)
target_link_options(blocklens_core PRIVATE ${BL_WASM_LINK_OPTIONS}
  -sEXPORT_NAME=BlockLensCore
  "SHELL:--extern-pre-js ${CMAKE_SOURCE_DIR}/web/js/engine-pre.js"   # SHELL: keeps the repeated
  "SHELL:--extern-pre-js ${BL_SCALAR_JS}"                            # flag (CMake dedups options)
  "SHELL:--extern-pre-js ${BL_FMA_JS}"
  "SHELL:--extern-post-js ${CMAKE_SOURCE_DIR}/web/js/engine.js"
  "SHELL:--extern-post-js ${CMAKE_SOURCE_DIR}/web/js/engine-load.js")
add_dependencies(blocklens_core blocklens_scalar blocklens_fma_standard)
set_target_properties(blocklens_core PROPERTIES
  OUTPUT_NAME blocklens SUFFIX ".js" RUNTIME_OUTPUT_DIRECTORY ${BL_DIST}
  LINK_DEPENDS "${CMAKE_SOURCE_DIR}/web/js/engine.js;${CMAKE_SOURCE_DIR}/web/js/engine-load.js;${CMAKE_SOURCE_DIR}/web/js/engine-pre.js;${BL_SCALAR_JS};${BL_FMA_JS}")
