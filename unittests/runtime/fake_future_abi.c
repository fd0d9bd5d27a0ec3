/* infc unit tests — a library that exports every ABI name but reports ABI major 2, to test that
 * loaders refuse it. Only infc_abi_version is ever called. */
#include <stdint.h>

uint32_t infc_abi_version(void) { return 2u << 16; }

#define STUB(name)                                                                                 \
  void name(void) {}
STUB(infc_status_string)
STUB(infc_dtype_size)
STUB(infc_dtype_name)
STUB(infc_model_create)
STUB(infc_model_release)
STUB(infc_model_name)
STUB(infc_model_num_inputs)
STUB(infc_model_num_outputs)
STUB(infc_model_workspace_bytes)
STUB(infc_model_input_info)
STUB(infc_model_output_info)
STUB(infc_model_find_input)
STUB(infc_model_find_output)
STUB(infc_session_create)
STUB(infc_session_release)
STUB(infc_session_error)
STUB(infc_session_model)
STUB(infc_session_num_threads)
STUB(infc_run)
STUB(infc_run_named)
