"""Resources: the lake (event log + blobs) and the AI reviewer (gateway + model configuration)."""

from pathlib import Path

from dagster import ConfigurableResource
from pydantic import PrivateAttr

from warehouse import settings


class LakeResource(ConfigurableResource):
    """The lake under `root` (defaults to settings.lake_root(), i.e. $PEERLAKE_HOME)."""

    root: str = ""

    def lake(self):
        from warehouse import Lake

        return Lake(Path(self.root) if self.root else settings.lake_root())

    def event_log(self):
        from warehouse import EventLog

        return EventLog(self.lake())


class ReviewerResource(ConfigurableResource):
    """Which model reviews, how, and how many independent samples per paper."""

    provider: str = settings.reviewer_defaults().provider
    model: str = settings.reviewer_defaults().model
    base_url: str | None = settings.reviewer_defaults().base_url
    samples: int = settings.reviewer_defaults().samples
    temperature: float = settings.reviewer_defaults().temperature
    max_output_tokens: int = settings.reviewer_defaults().max_output_tokens
    template: str = "reviewer_scoring"
    max_concurrency: int = 2

    _gateway = PrivateAttr(default=None)

    def gateway(self, log):
        from llm_calls.gateway import Gateway

        if self._gateway is None:
            self._gateway = Gateway(log, max_concurrency=self.max_concurrency)
        return self._gateway
