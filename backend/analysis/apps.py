from django.apps import AppConfig


class AnalysisConfig(AppConfig):
    name = "analysis"

    def ready(self) -> None:
        # Evidence sits below analysis and asks for runs through signals (evidence/signals.py).
        from analysis import receivers  # noqa: F401
