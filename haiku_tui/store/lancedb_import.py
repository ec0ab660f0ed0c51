"""``import lancedb`` without paying for what a knowledge base here never runs.

``import lancedb`` does heavy work the store does not need on a path, ``s3://`` (or any object
store) or ``db://`` URI:

* the generated REST client of the Lance namespace catalog (``lance_namespace_urllib3_client``):
  its package ``__init__`` imports every API class of the catalog service (~2/3 of its cost) though
  ``lance_namespace`` only needs its request/response models. Its package is registered unexecuted,
  so those models load alone; the first use of the package itself (e.g. ``ApiClient``, to talk to a
  REST catalog) runs its ``__init__`` then.
* pandas, which pyarrow imports when ``pyarrow.dataset`` makes its first scalar (to ask whether
  that value is a pandas object). It is held back only while ``pyarrow.dataset`` imports: pyarrow
  then treats values as non-pandas until something asks for pandas by name (``to_pandas()``,
  ``Table.from_pandas``, lancedb given a DataFrame), which imports it as usual.
* the validators of the catalog's ~150 request/response models (pydantic classes ``lance_namespace``
  imports whole, ~0.1 s to build): while lancedb imports, pydantic's ``defer_build`` default is on, so
  each model builds its validator on first use (a REST catalog's call) instead of at class creation.
* the ``overrides`` package's run-time check of every ``@override`` method's signature against its
  base class (~0.2 s of bytecode analysis at class creation, on Python < 3.12): lancedb gets
  ``typing_extensions.override``, the marker it uses itself on Python 3.12+, where it skips the check.

The first three keep the library's behaviour (nothing is removed, only imported when first used); the
third drops a development-time consistency check of lancedb's own classes, as lancedb does on 3.12+.
"""

from __future__ import annotations

import contextlib
import importlib.util
import sys
import threading
from collections.abc import Iterator
from types import ModuleType

REST_CLIENT = "lance_namespace_urllib3_client"
_lock = threading.Lock()


def import_lancedb() -> ModuleType:
    """The ``lancedb`` module, imported (once) without the REST catalog client's APIs or pandas."""
    module = sys.modules.get("lancedb")
    if module is not None:
        return module
    with _lock:
        _defer_package(REST_CLIENT)
        if "pyarrow.dataset" not in sys.modules and "pandas" not in sys.modules:
            sys.meta_path.insert(0, _HOLD_PANDAS)
            try:
                import pyarrow.dataset  # noqa: F401
            finally:
                sys.meta_path.remove(_HOLD_PANDAS)
        checker = _without_override_checks()
        try:
            with models_built_on_first_use():
                import lancedb as module
        finally:
            if sys.modules.get("overrides") is checker:
                del sys.modules["overrides"]
    return module


def _without_override_checks() -> ModuleType | None:
    """While lancedb imports, an ``overrides`` module whose ``override`` only marks the method (``typing``'s,
    as lancedb uses on Python 3.12+) instead of checking its signature against the base class's."""
    if "overrides" in sys.modules or sys.version_info >= (3, 12):
        return None
    from typing_extensions import override

    checker = ModuleType("overrides", "override markers without the run-time signature checks")
    checker.override = override  # type: ignore[attr-defined]
    checker.EnforceOverrides = type("EnforceOverrides", (), {"__module__": "overrides"})  # type: ignore[attr-defined]
    sys.modules["overrides"] = checker
    return checker


@contextlib.contextmanager
def models_built_on_first_use() -> Iterator[None]:
    """Pydantic models defined inside build their validators when first used, not when defined (pydantic's
    ``defer_build``, as the default of every model that does not set it): for importing a library that
    defines many more models than a run uses (the Lance catalog's, the MCP SDK's protocol types)."""
    try:
        from pydantic._internal._config import config_defaults
    except ImportError:  # another pydantic layout: models build at once, as usual
        yield
        return
    before = config_defaults.get("defer_build", False)
    config_defaults["defer_build"] = True
    try:
        yield
    finally:
        config_defaults["defer_build"] = before


class _HoldPandas:
    """A meta-path finder under which ``import pandas`` raises ``ModuleNotFoundError``."""

    @staticmethod
    def find_spec(name: str, path: object = None, target: object = None) -> None:
        if name == "pandas":
            raise ModuleNotFoundError("pandas is held back while pyarrow.dataset imports", name=name)


_HOLD_PANDAS = _HoldPandas()


def _defer_package(name: str) -> None:
    """Register package ``name`` with its ``__init__`` not yet run: its submodules import alone, and the
    first attribute asked of the package itself runs the ``__init__``."""
    if name in sys.modules:
        return
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None or spec.submodule_search_locations is None:
        return
    package = importlib.util.module_from_spec(spec)
    loader = spec.loader
    done = threading.Lock()

    def __getattr__(attr: str) -> object:
        with done:
            if package.__dict__.get("__getattr__") is __getattr__:
                del package.__dict__["__getattr__"]
                loader.exec_module(package)
        try:
            return package.__dict__[attr]
        except KeyError:
            raise AttributeError(f"module {name!r} has no attribute {attr!r}") from None

    package.__getattr__ = __getattr__  # type: ignore[attr-defined]
    sys.modules[name] = package
