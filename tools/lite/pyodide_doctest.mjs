// Run coursekit's doctests inside Pyodide under Node: the check that the pure modules work in the browser.
//   node tools/lite/pyodide_doctest.mjs PYODIDE_DIR COURSEKIT_WHEEL
// Prints one JSON object: {python, platform, modules: {name: {attempted, failures, needs, needs_in}}}
// (needs_in: the docstrings that stopped there). A doctest that
// stops at a package only Pyodide's full distribution carries (numpy, matplotlib, ...) is listed under
// "needs", not as a failure; any other failure is. Exits 1 when there is a failure.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

const [pyodideDir, wheel] = process.argv.slice(2);
const { loadPyodide } = await import(pathToFileURL(resolve(pyodideDir, "pyodide.mjs")).href);
const pyodide = await loadPyodide({ indexURL: resolve(pyodideDir) + "/", stdout: () => {}, stderr: () => {} });
pyodide.FS.writeFile("/tmp/coursekit.whl", readFileSync(wheel));
const report = pyodide.runPython(`
import doctest, importlib, json, pkgutil, sys, zipfile

FULL_DISTRIBUTION = {"numpy", "matplotlib", "PIL", "ipywidgets", "IPython", "torch"}
zipfile.ZipFile("/tmp/coursekit.whl").extractall("/tmp/site")
sys.path.insert(0, "/tmp/site")
import coursekit


class Runner(doctest.DocTestRunner):
    def __init__(self):
        super().__init__(optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS, verbose=False)
        self.problems, self.needs, self.needs_in, self.blocked = [], set(), set(), set()

    def report_unexpected_exception(self, out, test, example, exc_info):
        exc = exc_info[1]
        top = (getattr(exc, "name", None) or "").split(".")[0]
        if isinstance(exc, ModuleNotFoundError) and top in FULL_DISTRIBUTION:
            self.needs.add(top)
            self.needs_in.add(test.name)
            self.blocked.add(test.name)  # later examples of this docstring depend on it
        elif test.name not in self.blocked:
            self.problems.append(f"{test.name}: {type(exc).__name__}: {exc}")

    def report_failure(self, out, test, example, got):
        if test.name not in self.blocked:
            self.problems.append(f"{test.name}: expected {example.want!r}, got {got!r}")


report = {"python": sys.version.split()[0], "platform": sys.platform, "modules": {}}
for info in pkgutil.walk_packages(coursekit.__path__, "coursekit."):
    try:
        module = importlib.import_module(info.name)
    except ModuleNotFoundError as exc:
        report["modules"][info.name] = {"attempted": 0, "failures": [], "needs": [exc.name.split(".")[0]], "needs_in": [info.name]}
        continue
    runner = Runner()
    for test in doctest.DocTestFinder().find(module):
        runner.run(test, out=lambda text: None)
    report["modules"][info.name] = {
        "attempted": runner.tries,
        "failures": runner.problems,
        "needs": sorted(runner.needs),
        "needs_in": sorted(runner.needs_in),
    }
json.dumps(report)
`);
console.log(report);
const failed = Object.values(JSON.parse(report).modules).some((r) => r.failures.length > 0);
process.exit(failed ? 1 : 0);
