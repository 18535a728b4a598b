"""The postmortem as Markdown (to paste into a tracker) and as a printable HTML page (no script; every piece of
text escaped). Times are UTC: the document leaves the console and is read anywhere."""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
from html import escape

from incidents.models import Layer, Verdict
from postmortem.selectors import Postmortem

VERDICT_WORDS = {
    Verdict.NOT_LOOKED_AT: "not looked at",
    Verdict.CLEARED: "cleared",
    Verdict.SUSPECT: "suspect",
    Verdict.CULPRIT: "culprit",
}


def when(moment: dt.datetime) -> str:
    return moment.astimezone(dt.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def duration(seconds: float) -> str:
    minutes = round(seconds / 60)
    if minutes < 60:
        return f"{minutes} min"
    hours, minutes = divmod(minutes, 60)
    if hours < 48:
        return f"{hours} h {minutes} min"
    return f"{hours // 24} days {hours % 24} h"


def impact(pm: Postmortem) -> str:
    if pm.impact_end is None:
        return f"from {when(pm.impact_start)}, still open"
    length = duration((pm.impact_end - pm.impact_start).total_seconds())
    return f"{when(pm.impact_start)} → {when(pm.impact_end)} ({length}, until first marked mitigated or resolved)"


def _verdict_line(step_verdict: str, suggested: str | None) -> str:
    given = VERDICT_WORDS[Verdict(step_verdict)]
    if suggested and step_verdict == Verdict.NOT_LOOKED_AT:
        return f"not decided; the findings suggest **{VERDICT_WORDS[Verdict(suggested)]}**"
    return f"**{given}**" + (f" (the findings suggest {VERDICT_WORDS[Verdict(suggested)]})" if suggested else "")


def _md_quote(text: str) -> str:
    return "\n".join(f"> {line}" for line in text.strip().splitlines())


def markdown(pm: Postmortem) -> str:
    inc = pm.incident
    out = [
        f"# Postmortem: {inc.title}",
        "",
        f"- **Severity:** {inc.get_severity_display()} · **Status:** {inc.get_status_display().lower()}",
        f"- **Team:** {inc.team.name} · **Opened by:** {inc.created_by.get_username()}",
        f"- **Impact window:** {impact(pm)}",
        f"- **Written:** {when(pm.generated_at)}",
        "",
        "## Summary",
        "",
        inc.symptom.strip() or "(no symptom was written down)",
        "",
        "## Checklist",
        "",
    ]
    for view in pm.steps:
        label = Layer(view.step.layer).label
        suggested = view.suggestion.verdict if view.suggestion else None
        out.append(
            f"### {view.step.position + 1}. Blame the {label.lower()}: {_verdict_line(view.step.verdict, suggested)}"
        )
        out.append("")
        if view.step.rationale.strip():
            who = view.step.updated_by.get_username() if view.step.updated_by else "someone"
            out.append(f"Verdict by {who}: {view.step.rationale.strip()}")
            out.append("")
        if view.suggestion:
            out.append(f"Chain of evidence: {view.suggestion.reason}")
            out.append("")
            for pk in view.suggestion.findings:
                if (f := pm.cited.get(pk)) is not None:
                    out.append(f"- {f.title}")
            out.append("")
        elif not view.findings:
            out.append("No findings for this step.")
            out.append("")
    out += ["## Key findings", ""]
    if not pm.key_findings:
        out += ["No finding of high severity, and none behind a suggested verdict.", ""]
    for kf in pm.key_findings:
        f = kf.finding
        out += [f"### {f.title}", "", f"{f.get_severity_display()} · {Layer(f.layer).label} · from {kf.source}", ""]
        out += [f.explanation.strip(), ""]
    if pm.other_findings:
        out += [f"{pm.other_findings} more finding{'s' if pm.other_findings != 1 else ''} in the console.", ""]
    out += ["## Pinned timeline events", ""]
    if not pm.pinned:
        out += ["No event was pinned.", ""]
    for event in pm.pinned:
        who = event.actor.get_username() if event.actor else "Whodunnet"
        first, *rest = event.summary.strip().splitlines() or [""]
        out.append(f"- **{when(event.created_at)}** ({who}): {first}")
        out += [f"  {line}" for line in rest]
    out.append("")
    out += ["## Fixes", ""]
    if not pm.fixes:
        out += ["No finding points to a known fix.", ""]
    for fix in pm.fixes:
        out += [f"- **{fix.title}:** `{fix.command}`", f"  {fix.why}"]
    out.append("")
    return "\n".join(out)


STYLE = """
body { font: 15px/1.5 system-ui, sans-serif; color: #1b1f24; max-width: 52rem; margin: 2rem auto; padding: 0 1rem; }
h1 { font-size: 1.6rem; margin-bottom: .25rem; } h2 { border-bottom: 1px solid #ccd; margin-top: 2rem; }
h3 { font-size: 1.05rem; margin-bottom: .25rem; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: .2rem 1rem; }
dt { font-weight: 600; } dd { margin: 0; } code { background: #eef0f3; padding: 0 .25rem; border-radius: 3px; }
.meta { color: #555; font-size: .9rem; } .verdict { font-weight: 600; } .chain { margin: .25rem 0 .5rem; }
.pre { white-space: pre-wrap; } li { margin: .2rem 0; }
@media print { body { margin: 0; max-width: none; } h2 { break-after: avoid; } section { break-inside: avoid; } }
""".strip()
STYLE_HASH = "sha256-" + base64.b64encode(hashlib.sha256(STYLE.encode()).digest()).decode()
#: No script, no fetch, no form, no frame: the page is text and one inline stylesheet (by its hash).
CSP = (
    f"default-src 'none'; style-src '{STYLE_HASH}'; img-src 'none'; script-src 'none'; base-uri 'none'; "
    "form-action 'none'; frame-ancestors 'none'"
)


def _html_verdict(step_verdict: str, suggested: str | None) -> str:
    given = VERDICT_WORDS[Verdict(step_verdict)]
    if suggested and step_verdict == Verdict.NOT_LOOKED_AT:
        return (
            f"not decided; the findings suggest <span class=verdict>{escape(VERDICT_WORDS[Verdict(suggested)])}</span>"
        )
    tail = f" (the findings suggest {escape(VERDICT_WORDS[Verdict(suggested)])})" if suggested else ""
    return f"<span class=verdict>{escape(given)}</span>{tail}"


def html(pm: Postmortem) -> str:
    inc = pm.incident
    e = escape
    parts = [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>Postmortem: {e(inc.title)}</title>",
        f"<style>{STYLE}</style></head><body>",
        f"<h1>Postmortem: {e(inc.title)}</h1>",
        "<dl>",
        f"<dt>Severity</dt><dd>{e(inc.get_severity_display())}</dd>",
        f"<dt>Status</dt><dd>{e(inc.get_status_display().lower())}</dd>",
        f"<dt>Team</dt><dd>{e(inc.team.name)}</dd>",
        f"<dt>Opened by</dt><dd>{e(inc.created_by.get_username())}</dd>",
        f"<dt>Impact window</dt><dd>{e(impact(pm))}</dd>",
        f"<dt>Written</dt><dd>{e(when(pm.generated_at))}</dd>",
        "</dl>",
        "<section><h2>Summary</h2>",
        f"<p class=pre>{e(inc.symptom.strip() or '(no symptom was written down)')}</p></section>",
        "<section><h2>Checklist</h2>",
    ]
    for view in pm.steps:
        label = Layer(view.step.layer).label
        suggested = view.suggestion.verdict if view.suggestion else None
        parts.append(
            f"<h3>{view.step.position + 1}. Blame the {e(label.lower())}: "
            f"{_html_verdict(view.step.verdict, suggested)}</h3>"
        )
        if view.step.rationale.strip():
            who = view.step.updated_by.get_username() if view.step.updated_by else "someone"
            parts.append(f"<p>Verdict by {e(who)}: {e(view.step.rationale.strip())}</p>")
        if view.suggestion:
            parts.append(f"<p class=chain>Chain of evidence: {e(view.suggestion.reason)}</p><ul>")
            parts += [f"<li>{e(f.title)}</li>" for pk in view.suggestion.findings if (f := pm.cited.get(pk))]
            parts.append("</ul>")
        elif not view.findings:
            parts.append("<p class=meta>No findings for this step.</p>")
    parts.append("</section><section><h2>Key findings</h2>")
    if not pm.key_findings:
        parts.append("<p>No finding of high severity, and none behind a suggested verdict.</p>")
    for kf in pm.key_findings:
        f = kf.finding
        parts += [
            f"<h3>{e(f.title)}</h3>",
            f"<p class=meta>{e(f.get_severity_display())} · {e(Layer(f.layer).label)} · from {e(kf.source)}</p>",
            f"<p>{e(f.explanation.strip())}</p>",
        ]
    if pm.other_findings:
        parts.append(
            f"<p class=meta>{pm.other_findings} more finding{'s' if pm.other_findings != 1 else ''} in the console.</p>"
        )
    parts.append("</section><section><h2>Pinned timeline events</h2>")
    if not pm.pinned:
        parts.append("<p>No event was pinned.</p>")
    else:
        parts.append("<ul>")
        for event in pm.pinned:
            who = event.actor.get_username() if event.actor else "Whodunnet"
            parts.append(
                f"<li><strong>{e(when(event.created_at))}</strong> ({e(who)}): "
                f"<span class=pre>{e(event.summary.strip())}</span></li>"
            )
        parts.append("</ul>")
    parts.append("</section><section><h2>Fixes</h2>")
    if not pm.fixes:
        parts.append("<p>No finding points to a known fix.</p>")
    else:
        parts.append("<ul>")
        parts += [
            f"<li><strong>{e(x.title)}:</strong> <code>{e(x.command)}</code><br>{e(x.why)}</li>" for x in pm.fixes
        ]
        parts.append("</ul>")
    parts.append("</section></body></html>")
    return "\n".join(parts) + "\n"
