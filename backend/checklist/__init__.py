"""The checklist: neighbours → network → application → kernel, each step with its findings, a suggested verdict
and the verdict a person gave.

Not a Django app of its own: its rows (``ChecklistStep``) belong to the incident, created with it. It sits above
``analysis`` (and ``bisects``) in the layering because a suggestion is drawn from what they found. The rules
that turn findings into a suggestion are ``checklist/rules.py``.
"""
