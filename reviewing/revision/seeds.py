"""Seeds of the crossover's Scorer reviews of final manuscripts: one independent session per (paper
version, role, sample).

The standard review's seed is `1000 + sample` (reviewing.scoring), so a final's sample k would be
sent with the very seed of its original's sample k: on llama.cpp (and OpenAI's best-effort seed) the
two draws then share their randomness, their errors correlate, and the noise-adjusted correlation's
assumption of independent scoring errors ("Can We Believe AI Peer Review?") breaks. A final's reviews take a seed
derived from its paper id (a final's id is its content: a new version is a new id), the role and the
sample instead: stable (a replay sends the same request, keys included) and distinct from the
original's. The original side keeps the standard seed, so its reviews stay the same requests as a
template reviewer with that model (paid once, shared with the study's reviewers and the feedback).
"""

import dataclasses
import hashlib

from peerlake.llm_calls.types import LlmRequest

SCORER = "scorer"  # the role of a final manuscript's Scorer reviews
SEED_BITS = 31  # llama.cpp takes a 32-bit seed (-1 = random); a non-negative 31-bit int fits every provider


def session_seed(paper_version: str, role: str, sample: int) -> int:
    """A stable 31-bit seed for one review session: SHA-256 of (paper version, role, sample)."""
    digest = hashlib.sha256(f"{paper_version}\x1f{role}\x1f{sample}".encode()).digest()
    return int.from_bytes(digest[:8], "big") % (1 << SEED_BITS)


def in_own_sessions(requests: list[LlmRequest], paper_version: str, role: str = SCORER) -> list[LlmRequest]:
    """The requests with each sample's seed replaced by its session seed (the request keys change with
    it; reviewer_config does not, it leaves the seed out)."""
    return [dataclasses.replace(r, params={**r.params, "seed": session_seed(paper_version, role, r.sample_index)})
            for r in requests]
