// infc e2e — a C++17 program built against the C source of the zoo's LeNet
// (infc compile --emit=c): model.h's typed functions and the ABI, from C++.
//
//   emit_c_main MODEL.weights
//
// Runs the model on a constant image through model_run and checks the logits are finite
// and not all equal (the numbers themselves are check_emit_c.py's, against onnxruntime).
// Prints "ok" and exits 0, or a message and 1.
#include "model.h"

#include <cmath>
#include <cstdio>
#include <vector>

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: emit_c_main MODEL.weights\n");
    return 1;
  }
  infc_weights_file(argv[1]);
  infc_model *model = nullptr;
  if (infc_model_create(&model) != INFC_OK) {
    std::fprintf(stderr, "infc_model_create: %s\n", infc_weights_error());
    return 1;
  }
  infc_session *session = nullptr;
  if (infc_session_create(model, nullptr, &session) != INFC_OK) {
    std::fprintf(stderr, "infc_session_create failed\n");
    return 1;
  }
  std::vector<float> image(model_input_input_COUNT);
  for (size_t i = 0; i < image.size(); ++i)
    image[i] = float(i % 28) / 28.0f - 0.5f;
  std::vector<float> logits(model_output_logits_COUNT);
  infc_status status = model_run(session, image.data(), logits.data());
  if (status != INFC_OK) {
    std::fprintf(stderr, "model_run: %s (%s)\n", infc_status_string(status),
                 infc_session_error(session));
    return 1;
  }
  bool finite = true, varied = false;
  for (float x : logits) {
    finite = finite && std::isfinite(x);
    varied = varied || x != logits[0];
  }
  infc_session_release(session);
  infc_model_release(model);
  if (!finite || !varied) {
    std::fprintf(stderr, "logits are %s\n", finite ? "all equal" : "not finite");
    return 1;
  }
  std::printf("ok: %zu logits, first %g\n", logits.size(), logits[0]);
  return 0;
}
