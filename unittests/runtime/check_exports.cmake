# infc unit tests — checks a model.so's dynamic interface (run with cmake -P):
#  - `nm -D --defined-only` lists exactly the names of runtime/exports.map, which are exactly
#    the INFC_API declarations of include/infc/runtime.h;
#  - no dynamic relocation names an infc_ symbol: the runtime never calls its own exported
#    functions through the PLT, so a host that links one model.so and dlopen()s another cannot
#    interpose one runtime's functions into the other (runtime/internal.h);
#  - `ldd` shows nothing but libc, libm, libpthread, libdl, the loader and the vDSO.
# Arguments: -DSO=... -DMAP=... -DHEADER=... -DNM=... -DOBJDUMP=... -DLDD=...
foreach(var SO MAP HEADER NM OBJDUMP LDD)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "check_exports.cmake: -D${var}= is required")
  endif()
endforeach()

# The ABI names, from the header and from the version script.
file(READ "${HEADER}" header)
string(REGEX MATCHALL "INFC_API[^;]*[ *](infc_[a-z0-9_]+)\\(" decls "${header}")
set(header_names)
foreach(decl IN LISTS decls)
  string(REGEX MATCH "(infc_[a-z0-9_]+)\\($" _ "${decl}")
  list(APPEND header_names "${CMAKE_MATCH_1}")
endforeach()
list(SORT header_names)

file(READ "${MAP}" map)
string(REGEX REPLACE "/\\*.*\\*/" "" map "${map}")
string(REGEX MATCH "global:([^}]*)local:" _ "${map}")
string(REGEX MATCHALL "infc_[a-z0-9_]+" map_names "${CMAKE_MATCH_1}")
list(SORT map_names)

if(NOT header_names STREQUAL map_names)
  message(FATAL_ERROR "runtime.h declares:\n  ${header_names}\nexports.map lists:\n  ${map_names}")
endif()
list(LENGTH header_names count)
if(count LESS 20)
  message(FATAL_ERROR "found only ${count} INFC_API declarations: ${header_names}")
endif()

# What the .so actually exports.
execute_process(COMMAND "${NM}" -D --defined-only "${SO}"
  OUTPUT_VARIABLE nm_out RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${NM} -D failed on ${SO}")
endif()
string(REPLACE "\n" ";" lines "${nm_out}")
set(exported)
foreach(line IN LISTS lines)
  if(line MATCHES "^[0-9a-fA-F]* *[A-Za-z] ([^ ]+)$")
    string(REGEX REPLACE "@.*" "" sym "${CMAKE_MATCH_1}")
    list(APPEND exported "${sym}")
  endif()
endforeach()
list(SORT exported)
if(NOT exported STREQUAL map_names)
  message(FATAL_ERROR "${SO} exports:\n  ${exported}\nexpected exactly:\n  ${map_names}")
endif()

execute_process(COMMAND "${OBJDUMP}" -R "${SO}" OUTPUT_VARIABLE relocs RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${OBJDUMP} -R failed on ${SO}")
endif()
if(relocs MATCHES "[ \t](infc_[a-z0-9_]+)")
  message(FATAL_ERROR "${SO} has a dynamic relocation against ${CMAKE_MATCH_1}: an exported "
    "function is called through the PLT/GOT and can be interposed:\n${relocs}")
endif()

# What it depends on.
execute_process(COMMAND "${LDD}" "${SO}" OUTPUT_VARIABLE ldd_out RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "ldd failed on ${SO}")
endif()
string(REPLACE "\n" ";" lines "${ldd_out}")
foreach(line IN LISTS lines)
  string(STRIP "${line}" line)
  if(line STREQUAL "")
    continue()
  endif()
  string(REGEX MATCH "^[^ ]+" lib "${line}")
  get_filename_component(lib "${lib}" NAME)
  if(NOT lib MATCHES "^(linux-vdso|linux-gate|libc|libm|libpthread|libdl|ld-linux[-a-z0-9_]*)\\.so")
    message(FATAL_ERROR "${SO} depends on ${lib}; allowed: libc, libm, libpthread, libdl:\n${ldd_out}")
  endif()
endforeach()
message(STATUS "${SO}: exports the ${count} ABI functions only, binds them locally, "
  "depends on libc/libm only")
