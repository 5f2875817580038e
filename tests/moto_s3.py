"""moto's S3 server with a conditional create made atomic, as S3 documents it (of several writers putting
one key with `If-None-Match: *`, exactly one succeeds). moto checks that the key is absent and then
writes it, without a lock between the two, so under load two threads of its server could both pass the
check and both "win" (seen once in a full `make test`: test_put_if_absent_has_exactly_one_winner[s3]). A
test double at the network edge must keep the provider's rule, so every object put here holds one lock
from the check to the write. Started by tests/s3server.py as a script."""

import sys
import threading

from moto.s3.responses import S3Response
from moto.server import main

_put_lock = threading.Lock()
_put_object = S3Response.put_object


def _atomic_put_object(self):
    with _put_lock:
        return _put_object(self)


S3Response.put_object = _atomic_put_object

if __name__ == "__main__":
    main(sys.argv[1:])
