# find_package(infc CONFIG): what cmake --install put under its prefix (docs/integration.md).
#   infc::compiler        the infc executable (imported), for add_custom_command(COMMAND ...)
#   infc::runtime         INTERFACE: include/ for <infc/runtime.h>, and the dlopen library
#   INFC_COMPILER         the executable's path
#   infc_add_model(TARGET name MODEL m.onnx [HEADER] [OPTIONS flag...])
#                         compiles the model at build time into name.so (and with HEADER the
#                         typed name.h), re-run when the model, the compiler or the flags
#                         change; `name` is a library target with name.h on its include path.
#                         Link at most one model directly (every model.so exports the same
#                         C ABI names); load others from $<TARGET_FILE:name> (infc_api_open).
get_filename_component(_infc_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
set(INFC_COMPILER "${_infc_prefix}/bin/infc")
if(NOT EXISTS "${INFC_COMPILER}")
  set(infc_FOUND FALSE)
  set(infc_NOT_FOUND_MESSAGE "no infc compiler at ${INFC_COMPILER}")
  return()
endif()
if(NOT TARGET infc::compiler)
  add_executable(infc::compiler IMPORTED)
  set_target_properties(infc::compiler PROPERTIES IMPORTED_LOCATION "${INFC_COMPILER}")
  add_library(infc::runtime INTERFACE IMPORTED)
  set_target_properties(infc::runtime PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${_infc_prefix}/include"
    INTERFACE_LINK_LIBRARIES "${CMAKE_DL_LIBS}")
endif()

function(infc_add_model)
  cmake_parse_arguments(ARG "HEADER" "TARGET;MODEL" "OPTIONS" ${ARGN})
  if(NOT ARG_TARGET OR NOT ARG_MODEL)
    message(FATAL_ERROR "infc_add_model: TARGET and MODEL are required")
  endif()
  get_filename_component(model "${ARG_MODEL}" ABSOLUTE)
  set(dir "${CMAKE_CURRENT_BINARY_DIR}/infc_models")
  set(output "${dir}/${ARG_TARGET}.so")
  set(outputs "${output}")
  set(header_args)
  if(ARG_HEADER)
    list(APPEND outputs "${dir}/${ARG_TARGET}.h")
    set(header_args --header "${dir}/${ARG_TARGET}.h")
  endif()
  # The flags in a file that changes only when they do: the command re-runs on a new flag
  # with every generator (Makefiles do not track command lines).
  set(flags_file "${dir}/${ARG_TARGET}.flags")
  file(CONFIGURE OUTPUT "${flags_file}" CONTENT "${ARG_OPTIONS};${ARG_HEADER}\n")
  add_custom_command(OUTPUT ${outputs}
    COMMAND infc::compiler compile "${model}" -o "${output}" ${header_args} ${ARG_OPTIONS}
    DEPENDS "${model}" "${INFC_COMPILER}" "${flags_file}"
    COMMENT "infc compile ${ARG_MODEL}"
    VERBATIM)
  add_custom_target(${ARG_TARGET}_compile ALL DEPENDS ${outputs})
  # The model.so as a library target: link it (target_link_libraries(app PRIVATE name)) or
  # load it at run time from $<TARGET_FILE:name>.
  add_library(${ARG_TARGET} SHARED IMPORTED GLOBAL)
  file(MAKE_DIRECTORY "${dir}")
  set_target_properties(${ARG_TARGET} PROPERTIES
    IMPORTED_LOCATION "${output}" IMPORTED_SONAME "${ARG_TARGET}.so"
    INTERFACE_INCLUDE_DIRECTORIES "${dir}" INTERFACE_LINK_LIBRARIES infc::runtime)
  add_dependencies(${ARG_TARGET} ${ARG_TARGET}_compile)
endfunction()
