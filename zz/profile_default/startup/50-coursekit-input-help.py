# The course in every IPython kernel, a restarted one too: `import coursekit` and the course's line of help under an
# error Python raised before check() saw the answer (written by `python -m coursekit setup`; delete this file to
# stop it).
def _coursekit_startup() -> None:
    import importlib.util
    import os
    import sys

    source = '/work/main'
    if importlib.util.find_spec("coursekit") is None and os.path.isfile(
        os.path.join(source, "coursekit", "__init__.py")
    ):
        sys.path.append(source)  # the clone the course was installed from (python -m coursekit setup)

    if importlib.util.find_spec("coursekit") is not None:
        get_ipython().extension_manager.load_extension("coursekit.exercises.input_help")  # noqa: F821 (IPython's startup namespace)


_coursekit_startup()
del _coursekit_startup
