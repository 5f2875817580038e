"""The Store verbs every adapter must honour: the commit protocol rests on nothing else."""

import threading

import pytest

from peerlake.warehouse.blobs import lake_store
from peerlake.warehouse.stores import ObjectMissing, ObjectStoreError, Store
from tests.warehouse.conformance.support import store


def test_put_get_head_list_copy_delete(store_url):
    s = store(store_url)
    assert isinstance(s, Store)
    s.put("a/b/1.json", b"one")
    s.put("a/b/2.json", b"two")
    s.put("a/c", b"three")
    s.put("ab", b"not under a/")
    assert s.get("a/b/1.json") == b"one"
    s.put("a/b/1.json", b"one again")  # put replaces
    assert s.get("a/b/1.json") == b"one again"
    assert s.head("a/c").size == 5 and s.head("a/nothing") is None
    assert s.exists("a/c") and not s.exists("a/nothing")
    assert [i.key for i in s.list("a/")] == ["a/b/1.json", "a/b/2.json", "a/c"]  # key order, prefix only
    assert [i.key for i in s.list("a/b/")] == ["a/b/1.json", "a/b/2.json"]
    assert [i.key for i in s.list("a/", start_after="a/b/1.json")] == ["a/b/2.json", "a/c"]
    assert list(s.list("nothing/")) == []
    s.copy("a/c", "d/c")
    assert s.get("d/c") == b"three"
    s.delete("a/c")
    s.delete("a/c")  # deleting what is gone is no error
    assert not s.exists("a/c")
    with pytest.raises(ObjectMissing):
        s.get("a/c")
    with pytest.raises(FileNotFoundError):  # readers treat a missing object like a missing file
        s.copy("a/c", "e")


def test_a_store_has_the_files_its_capabilities_promise(any_lake):
    s = lake_store(any_lake)  # on this disk too, the one store read in place
    assert not s.in_place or (s.local_files and not s.shared)  # read in place: files no other machine writes
    s.put("a/b.json", b"one")
    if s.local_files:
        assert s.path("a/b.json").read_bytes() == b"one"
    else:
        with pytest.raises(ObjectStoreError):
            s.path("a/b.json")


def test_put_if_absent_has_exactly_one_winner(store_url):
    s = store(store_url)
    wins: list[int] = []
    barrier = threading.Barrier(8)

    def create(i: int) -> None:
        barrier.wait()
        if s.put_if_absent("events/manifests/000000000001.json", f"writer {i}".encode()):
            wins.append(i)

    threads = [threading.Thread(target=create, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(wins) == 1
    assert s.get("events/manifests/000000000001.json") == f"writer {wins[0]}".encode()  # the winner's, whole
    assert not s.put_if_absent("events/manifests/000000000001.json", b"late")


@pytest.mark.parametrize("key", ["../outside.json", "events/../../outside.json", "/tmp/outside.json", ""])
def test_a_local_key_never_leaves_the_lake_folder(tmp_path, key):
    # A manifest names the keys a roll-forward copies to and verify reads: a forged one must not reach
    # a file outside the lake.
    from peerlake.warehouse.stores import KeyOutsideStore
    from peerlake.warehouse.stores.local import LocalStore

    s = LocalStore(tmp_path / "lake")
    s.put("events/staging/x", b"staged")
    for verb in (lambda: s.get(key), lambda: s.put(key, b"x"), lambda: s.put_if_absent(key, b"x"),
                 lambda: s.copy("events/staging/x", key)):
        with pytest.raises(KeyOutsideStore):
            verb()
    assert not (tmp_path / "outside.json").exists() and sorted(p.name for p in tmp_path.iterdir()) == ["lake"]
