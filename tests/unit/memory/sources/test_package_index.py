"""The index client against a real HTTP server on loopback: PEP 503 HTML, PEP 691 JSON,
hash checks, size caps, and requests confined to the configured index."""

from __future__ import annotations

import http.server
import os
import threading

import pytest

from codemem.memory.sources.distributions import best_candidate
from codemem.memory.sources.package_index import (
    IndexFile,
    PackageIndex,
    PackageIndexError,
    configured_index,
    redact,
)
from codemem.memory.sources.spec import PipSource

from .library import TEXTKIT_V1, TEXTKIT_V2, publish, serve, sha256


@pytest.mark.parametrize("json_api", [False, True])
def test_listing_and_a_verified_download(tmp_path, json_api):
    wheel = publish(tmp_path / "index", "textkit", "1.0", TEXTKIT_V1, json_api=json_api)
    with serve(tmp_path / "index") as (url, log):
        index = PackageIndex(url)
        files = index.files("TextKit")
        assert [f.filename for f in files] == ["textkit-1.0-py3-none-any.whl"]
        assert files[0].sha256 == sha256(wheel)
        target = str(tmp_path / "got.whl")
        assert index.download(files[0], target, 1 << 20) == sha256(wheel)
        assert index.files("unknown-project") == []
    assert log[0] == "/simple/textkit/"
    assert sha256(target) == sha256(wheel)


def test_a_hash_mismatch_or_a_file_over_the_cap_is_refused(tmp_path):
    publish(tmp_path / "index", "textkit", "1.0", TEXTKIT_V1)
    with serve(tmp_path / "index") as (url, _):
        index = PackageIndex(url)
        good = index.files("textkit")[0]
        forged = IndexFile(good.filename, good.url, "0" * 64)
        with pytest.raises(PackageIndexError, match="does not match"):
            index.download(forged, str(tmp_path / "a.whl"), 1 << 20)
        assert not (tmp_path / "a.whl").exists()
        with pytest.raises(PackageIndexError, match="larger than the source size cap"):
            index.download(good, str(tmp_path / "b.whl"), 100)


def test_requests_leave_only_for_the_configured_index(tmp_path):
    publish(tmp_path / "index", "textkit", "1.0", TEXTKIT_V1)
    with serve(tmp_path / "index") as (url, _), serve(tmp_path) as (other, other_log):
        index = PackageIndex(url)
        elsewhere = IndexFile("x.whl", other.replace("/simple/", "/x.whl"))
        with pytest.raises(PackageIndexError, match="not on the configured package index"):
            index.download(elsewhere, str(tmp_path / "x.whl"), 1 << 20)
        assert other_log == []


class _Redirect(http.server.BaseHTTPRequestHandler):
    target = ""

    def log_message(self, *args: object) -> None:
        return None

    def do_GET(self) -> None:  # noqa: N802
        self.send_response(302)
        self.send_header("Location", self.target)
        self.end_headers()


def test_a_redirect_off_the_index_is_refused(tmp_path):
    with serve(tmp_path) as (other, other_log):
        handler = type("R", (_Redirect,), {"target": other + "textkit/"})
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        try:
            index = PackageIndex(f"http://127.0.0.1:{server.server_address[1]}/simple/")
            with pytest.raises(PackageIndexError, match="refused a redirect"):
                index.files("textkit")
        finally:
            server.shutdown()
            server.server_close()
        assert other_log == []


def test_an_unreachable_index_is_a_clear_error_without_credentials():
    index = PackageIndex("http://user:secret@127.0.0.1:9/simple/", timeout=2)
    with pytest.raises(PackageIndexError) as caught:
        index.files("textkit")
    assert "cannot reach the package index http://127.0.0.1:9/simple/" in str(caught.value)
    assert "secret" not in str(caught.value) and "secret" not in repr(index)
    assert redact("https://u:p@host:8443/simple/?x=1") == "https://host:8443/simple/"


def test_the_best_file_is_the_newest_fitting_version_wheel_first(tmp_path):
    files = [IndexFile(n, f"http://i/{n}") for n in (
        "textkit-1.0.tar.gz", "textkit-1.0-py3-none-any.whl", "textkit-2.0.tar.gz",
        "textkit-2.0-cp310-cp310-manylinux_2_17_x86_64.whl", "textkit-3.0b1-py3-none-any.whl",
        "other-9.0-py3-none-any.whl", "textkit-junk.zip")]
    assert best_candidate(PipSource("textkit"), files).file.filename == (
        "textkit-2.0-cp310-cp310-manylinux_2_17_x86_64.whl")
    assert best_candidate(PipSource("textkit", "<2"), files).file.filename == (
        "textkit-1.0-py3-none-any.whl")
    assert best_candidate(PipSource("textkit", "==3.0b1"), files).version == "3.0b1"
    yanked = [IndexFile("textkit-1.0-py3-none-any.whl", "http://i/x", yanked=True)]
    assert best_candidate(PipSource("textkit"), yanked) is None
    assert best_candidate(PipSource("textkit", "==1.0"), yanked) is not None


def test_the_index_comes_from_the_setting_the_environment_or_pip_conf(tmp_path):
    conf = tmp_path / "pip.conf"
    conf.write_text("[global]\nindex-url = https://mirror.example/simple\n")
    assert configured_index("https://set/simple", {"PIP_INDEX_URL": "https://env"}) == (
        "https://set/simple")
    assert configured_index("", {"PIP_INDEX_URL": "https://env/simple"}) == "https://env/simple"
    env = {"PIP_CONFIG_FILE": str(conf), "HOME": str(tmp_path)}
    assert configured_index("", env) in ("https://mirror.example/simple",
                                         _system_pip_conf_index())


def _system_pip_conf_index() -> str:
    """A machine-wide /etc/pip.conf is read after PIP_CONFIG_FILE, as pip does."""
    from codemem.memory.sources.package_index import _pip_config_index

    return _pip_config_index({}) if os.path.exists("/etc/pip.conf") else ""


def test_files_of_a_version_two_listing(tmp_path):
    publish(tmp_path / "index", "textkit", "1.0", TEXTKIT_V1)
    publish(tmp_path / "index", "textkit", "2.0", TEXTKIT_V2)
    with serve(tmp_path / "index") as (url, _):
        names = [f.filename for f in PackageIndex(url).files("textkit")]
    assert names == ["textkit-1.0-py3-none-any.whl", "textkit-2.0-py3-none-any.whl"]
