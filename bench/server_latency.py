"""How fast the editor server answers: first diagnostics after start-up, and re-lints while typing.

    python bench/server_latency.py              # both measurements, figures printed
    python bench/server_latency.py --edits 50   # more edits for the median

1. From spawning `torchcopylint server` to the first `publishDiagnostics` of a typical
   ~300-line training script (start-up, `initialize`, `didOpen`, the lint): target under 2 s.
2. On a ~1,000-line file, the time from each `didChange` (one line edited, as a keystroke
   does) to the diagnostics published for that version, over `--edits` edits: target a
   median under 300 ms. The debounce the server waits after an edit is included.

The scripts are made from the project's own examples/ (not from anyone else's code). Needs
the `server` extra (pygls); the client is pygls's own.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient
from pygls.uris import from_fs_path

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
TRAINING_SCRIPT = ("train/dcgan.py", "clean/train_classifier.py", "utils/tensor_utils.py")
LONG_FILE = ("train/autograd_pitfalls.py", "models/resnet_blocks.py", "train/leaf_tensors.py", "train/dcgan.py",
             "clean/train_classifier.py")


def joined(parts: tuple[str, ...], limit: int) -> str:
    """Example files one after another, cut at a top-level statement near `limit` lines."""
    lines: list[str] = []
    for part in parts:
        lines += (EXAMPLES / part).read_text().splitlines(keepends=True) + ["\n"]
    cut = len(lines)
    for number in range(min(limit, len(lines) - 1), 0, -1):
        if lines[number][:1] not in (" ", "\t", "\n", ")", "]", "}", "#", '"', "'"):
            cut = number
            break
    return "".join(lines[:cut])


class Client(LanguageClient):
    def __init__(self) -> None:
        super().__init__("torchcopylint-bench", "1")
        self.published: asyncio.Queue = asyncio.Queue()

        @self.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def on_publish(params: types.PublishDiagnosticsParams) -> None:
            self.published.put_nowait((time.perf_counter(), params))


async def next_publication(client: Client, uri: str, version: int) -> tuple[float, types.PublishDiagnosticsParams]:
    while True:
        when, params = await client.published.get()
        if params.uri == uri and (params.version is None or params.version >= version):
            return when, params


async def measure(edits: int) -> dict:
    folder = Path(tempfile.mkdtemp(prefix="torchcopylint-server-bench-"))
    script, long_file = folder / "train.py", folder / "long.py"
    script.write_text(joined(TRAINING_SCRIPT, 300))
    long_file.write_text(joined(LONG_FILE, 1000))

    started = time.perf_counter()
    client = Client()
    await client.start_io(sys.executable, "-m", "torchcopylint", "server")
    await client.initialize_async(types.InitializeParams(capabilities=types.ClientCapabilities(),
                                                        root_uri=from_fs_path(str(folder))))
    client.initialized(types.InitializedParams())
    uri = from_fs_path(str(script))
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
        uri=uri, language_id="python", version=1, text=script.read_text())))
    first, params = await next_publication(client, uri, 1)
    first_seconds = first - started
    first_count = len(params.diagnostics)

    uri = from_fs_path(str(long_file))
    text = long_file.read_text()
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
        uri=uri, language_id="python", version=1, text=text)))
    await next_publication(client, uri, 1)
    lines = text.splitlines(keepends=True)
    statement_lines = [number for number, line in enumerate(lines) if line.startswith("    ") and "=" in line]
    latencies = []
    for edit in range(edits):
        number = statement_lines[(edit * 7) % len(statement_lines)]
        # A keystroke: a trailing comment typed on a statement line (the text still parses).
        lines[number] = lines[number].rstrip("\n") + f"  # edit {edit}\n"
        version = edit + 2
        sent = time.perf_counter()
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text="".join(lines))]))
        when, _ = await next_publication(client, uri, version)
        latencies.append(when - sent)
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return {
        "script_lines": script.read_text().count("\n"),
        "first_seconds": first_seconds,
        "first_diagnostics": first_count,
        "long_lines": len(lines),
        "median_ms": statistics.median(latencies) * 1000,
        "max_ms": max(latencies) * 1000,
        "edits": edits,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--edits", type=int, default=20)
    options = parser.parse_args()
    figures = asyncio.run(measure(options.edits))
    print(f"start-up to first diagnostics ({figures['script_lines']}-line script, "
          f"{figures['first_diagnostics']} findings): {figures['first_seconds']:.2f} s (target < 2 s)")
    print(f"re-lint after an edit ({figures['long_lines']}-line file, {figures['edits']} edits): "
          f"median {figures['median_ms']:.0f} ms, max {figures['max_ms']:.0f} ms (target median < 300 ms)")


if __name__ == "__main__":
    main()
