"""Readi's progress lines: each node's update in a sentence, for people watching a run."""

from __future__ import annotations

from typing import Any

Update = dict[str, Any]


def _plan(node: str, update: Update) -> str:
    plan = update.get("plan") or {}
    if "headers" in plan:
        paths = f"headers {plan['headers']}, constraints {plan.get('constraints')}"
    else:
        paths = "; ".join(" -> ".join([t, *r]) for t, alts in plan.items() for r in alts)
    return paths or f"unreadable reply: {update.get('parse_error')}"


def _bind(update: Update, environment: str) -> str:
    bindings = update.get("bindings") or {}
    if environment == "table":
        return ", ".join(f"{h} -> {c or 'not in the table'}" for h, c in bindings.items())
    n = sum(len(c) for alts in bindings.values() for a in alts for c in a)
    return f"{n} candidate KG relations"


def _connect(update: Update, environment: str) -> str:
    done = []
    for i in update.get("instances") or []:
        if environment == "table":
            fallback = " (constraints matched nothing: all rows)" if i.get("fallback") else ""
            done.append(f"{len(i.get('headers', []))} columns, {i.get('total')} rows{fallback}")
        else:
            state = "complete" if i.get("complete") else "stuck"
            relations = len(i["path"]["relations"])
            done.append(f"{i['path']['topic']}: {state} ({i.get('depth')}/{relations} relations)")
    return "; ".join(done) or "nothing to instantiate"


def describe(node: str, update: Update, environment: str = "kg") -> str:
    """A sentence for people watching a question being answered."""
    if update.get("failure"):
        return f"the environment failed: {update['failure']}"
    if node in ("generate", "edit"):
        return _plan(node, update)
    if node == "bind":
        return _bind(update, environment)
    if node == "connect":
        return _connect(update, environment)
    if node == "diagnose":
        reasons = (update.get("diagnosis") or {}).get("reasons") or []
        return "ok" if not reasons else "; ".join(r["message"] for r in reasons)
    if node == "answer":
        return f"answers {update.get('answers')}" + (
            " (grounded)" if update.get("grounded") else ""
        )
    return "done"
