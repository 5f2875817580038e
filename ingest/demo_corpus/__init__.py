"""Four short synthetic papers (written for peerlake) with OpenReview-shaped human reviews."""

from pathlib import Path

DEMO_DIR = Path(__file__).resolve().parent
DEMO_VENUE = "Demo.cc/2026/Conference"
SYNTHETIC_LABEL = "Synthetic demo paper — written for peerlake; not a real submission"


def demo_papers() -> list[Path]:
    return sorted((DEMO_DIR / "papers").glob("demo-*.pdf"))


def demo_reviews() -> list[Path]:
    return sorted((DEMO_DIR / "reviews").glob("demo-*.json"))
