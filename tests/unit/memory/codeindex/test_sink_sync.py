"""SinkSync (memory/codeindex/sink_sync.py) against a real local Qdrant shaped like the Cat's
collection."""

from __future__ import annotations

from codemem.memory.codeindex.file_points import FILE_KIND, file_point_id
from codemem.memory.codeindex.sink_sync import DIRTY, SinkMode, SinkSync, sink_label

from ..codebase.sinkworld import DIM, EMBEDDER, REPO, World, cat_sink, payload_kinds, point_ids


def sync_for(world: World, sink, mode: SinkMode) -> SinkSync:
    return SinkSync(world.manifest, world.payloads, sink, mode=lambda: mode,
                    embed=EMBEDDER.embed_documents)


def test_files_mode_pushes_one_outline_point_per_file(tmp_path):
    world = World(tmp_path)
    sink, client, _ = cat_sink()
    result = sync_for(world, sink, SinkMode.FILES).check(REPO, DIM)
    assert (result.action, result.pushed) == ("repushed", 2)
    assert point_ids(client) == {file_point_id(REPO, "pkg/a.py"), file_point_id(REPO, "pkg/b.py")}
    assert payload_kinds(client) == {"pkg/a.py": FILE_KIND, "pkg/b.py": FILE_KIND}
    records, _ = client.scroll(collection_name="declarative", limit=10, with_payload=True)
    outline = next(r.payload["page_content"] for r in records
                   if r.payload["metadata"]["path"] == "pkg/a.py")
    assert outline == ("File pkg/a.py: 3 definitions\ndef parse(text):\nclass Parser:\n"
                       "    def feed(self, chunk):")
    repo = world.manifest.repo(REPO)
    assert (repo.sink_count, repo.sink_embedder, repo.sink_size) == (2, "E [files]", DIM)
    again = sync_for(world, sink, SinkMode.FILES).check(REPO, DIM)
    assert again.action == "in_sync"  # nothing changed: no re-push


def test_entities_mode_embeds_rows_stored_without_vectors(tmp_path):
    world = World(tmp_path)
    sink, client, _ = cat_sink()
    result = sync_for(world, sink, SinkMode.ENTITIES).check(REPO, DIM)
    assert (result.action, result.pushed) == ("repushed", 4)
    assert point_ids(client) == {row.point_id for row in world.manifest.entities(REPO)}
    assert all(row.vector is not None and len(row.vector) == 4 * DIM
               for row in world.manifest.entities(REPO))  # kept for the next re-push
    assert world.manifest.repo(REPO).sink_embedder == sink_label(SinkMode.ENTITIES, "E") == "E"


def test_wipe_check_notices_a_deleted_point_among_the_sample_and_repushes(tmp_path):
    world = World(tmp_path)
    sink, client, _ = cat_sink()
    sync = sync_for(world, sink, SinkMode.ENTITIES)
    sync.check(REPO, DIM)
    victim = world.manifest.sample_point_ids(REPO, 64)[1]
    client.delete(collection_name="declarative", points_selector=[victim])
    assert victim not in point_ids(client)
    result = sync.check(REPO, DIM)
    assert result.action == "repushed"
    assert result.reason == "1 of 4 sampled points are missing"
    assert victim in point_ids(client) and len(point_ids(client)) == 4


def test_mode_none_clears_the_points_once(tmp_path):
    world = World(tmp_path)
    sink, client, _ = cat_sink()
    sync_for(world, sink, SinkMode.FILES).check(REPO, DIM)
    client.upsert(collection_name="declarative", points=[_foreign_point()])
    off = sync_for(world, sink, SinkMode.NONE)
    first = off.check(REPO, DIM)
    assert (first.action, first.reason) == ("cleared", "the sink mode is none")
    assert point_ids(client) == {FOREIGN}  # only this repository's code points left
    repo = world.manifest.repo(REPO)
    assert (repo.sink_count, repo.sink_embedder) == (0, None)
    assert off.check(REPO, DIM).action == "off"  # nothing left to clear: no second delete


def test_an_interrupted_push_is_redone_and_pushes_stop_being_marked(tmp_path):
    world = World(tmp_path)
    sink, client, _ = cat_sink()
    sync = sync_for(world, sink, SinkMode.FILES)
    sync.check(REPO, DIM)
    push = sync.pusher(REPO)
    push([], [], ["pkg/b.py"])  # nothing pushed or removed: state untouched
    assert world.manifest.repo(REPO).sink_count == 2
    row = world.manifest.entities(REPO, "pkg/b.py")[0]
    push([(row, "def render(tree):", world.memories[row.memory_id][1])], [], ["pkg/b.py"])
    assert world.manifest.repo(REPO).sink_count == DIRTY  # until the run is marked synced
    result = sync.check(REPO, DIM)
    assert (result.action, result.reason) == ("repushed", "an earlier push did not finish")
    sync.mark_synced(REPO)
    assert world.manifest.repo(REPO).sink_count == 2
    assert sync_for(world, None, SinkMode.FILES).check(REPO, DIM).action == "no_sink"


FOREIGN = "00000000-0000-0000-0000-000000000001"


def _foreign_point():
    from qdrant_client.models import PointStruct

    return PointStruct(id=FOREIGN, vector=[1.0] + [0.0] * (DIM - 1),
                       payload={"page_content": "a user's note", "metadata": {"source": "chat"}})
