# lit configuration for the Plexus test suite.
import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "PLEXUS"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".plx", ".test"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "unit", "fuzz", "corpus"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.plexus_obj_root, "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%plexus_src", config.plexus_src_root))
config.environment["FILECHECK_OPTS"] = "--enable-var-scope"

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

tool_dirs = [config.plexus_tools_dir, config.llvm_tools_dir]
tools = ["plx-opt", "plx-translate", "plxc"]
llvm_config.add_tool_substitutions(tools, tool_dirs)
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.plexus_tools_dir, append_path=True)
