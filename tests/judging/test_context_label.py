"""A judge panel member's name reaches the progress line of its calls, and nothing else (#45)."""

from peerlake.judging.base import JudgeConfig, JudgeContext, judge_request


class RecordingGateway:
    def __init__(self):
        self.seen = []

    def call_many(self, requests, *, progress, description, return_exceptions):
        self.seen.append((description, [r.request_key for r in requests]))
        return [None] * len(requests)


def _request():
    cfg = JudgeConfig(provider="openai", model="gpt-4.1-mini")
    return cfg, judge_request(cfg, "depth", "units", "judge_depth_units", subject_id="human:r1",
                              review_text="The method is novel.", max_units=None)


def test_the_label_names_the_member_in_the_progress_description_only():
    cfg, req = _request()
    plain, labelled = RecordingGateway(), RecordingGateway()
    JudgeContext(log=None, gateway=plain, cfg=cfg, judge_config="c", study="s").call_many([req], "depth: units")
    JudgeContext(log=None, gateway=labelled, cfg=cfg, judge_config="c", study="s",
                 label="t07").call_many([req], "depth: units")
    assert plain.seen[0][0] == "depth: units"
    assert labelled.seen[0][0] == "depth: units [t07]"
    assert plain.seen[0][1] == labelled.seen[0][1]  # the same requests
