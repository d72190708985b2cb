"""pytest plugin for `make sanitize` (harness/fuzz/sanitize.sh), loaded with
`-p kc_sanitize_plugin` when pytest itself runs with the ASan and UBSan
runtimes preloaded (LD_PRELOAD), so that the shared objects the tests build
with the sanitizers (conftest.generated_library, through the gcc wrapper of
sanitize.sh) can be loaded by ctypes.

The preload is for this process only: it is taken out of the environment the
tests' own subprocesses inherit (make, gcc, and the test programs, which are
linked with the runtimes themselves), and LeakSanitizer, off for the Python
process (the interpreter keeps its memory to the end), is turned back on for
them."""

import os

os.environ.pop("LD_PRELOAD", None)
_options = os.environ.get("ASAN_OPTIONS", "")
os.environ["ASAN_OPTIONS"] = ":".join(
    "detect_leaks=1" if part == "detect_leaks=0" else part for part in _options.split(":") if part)
