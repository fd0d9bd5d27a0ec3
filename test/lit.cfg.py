# lit configuration of the infc pass tests.
import os

import lit.formats
from lit.llvm import llvm_config

config.name = "infc"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.infc_obj_root, "test")
# Python scripts under e2e/ and models/ are driven by CTest, not lit.
config.excludes = ["e2e", "models", "conformance", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]

llvm_config.with_system_environment(["HOME", "TMP", "TEMP"])
llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.add_tool_substitutions(["infc-opt", "infc"], [config.infc_tools_dir])

# Tests that run lowered IR on the host need upstream's runner (mlir-22-tools), stdbuf.
import shutil
if shutil.which("stdbuf") and all(
    os.path.exists(os.path.join(config.llvm_tools_dir, tool))
    for tool in ("mlir-opt", "mlir-runner")
):
    config.available_features.add("mlir-runner")
