"""The monitoring stack checks itself: is Prometheus scraping the GPU exporters, are their
series fresh, which exporter versions feed it.

One instant query at ``at`` (the branches told apart by a ``steth_stack`` label) gives:

- ``up``: each scrape target of the exporter jobs, its last value and its mean over the window
  (``up == 0``: Prometheus could not scrape it). A job is an exporter's when its targets serve the
  exporter's anchor metric in the window or its name says so (``dcgm``, ``node``);
- ``series`` / ``stale``: per target, the anchor series it had in the window and those with no
  sample now (``last_over_time(M[w]) unless M``: a GPU or a target that stopped reporting);
- ``name``: the metric name each target reports for a field renamed between exporter versions
  and ``label``: the node label it uses. From DCGM's and dcgm-exporter's sources:
  ``DCGM_FI_DEV_CLOCK_THROTTLE_REASONS`` is field 112 under its old name, kept in DCGM's
  ``dcgm_fields.h`` as a deprecated alias of ``DCGM_FI_DEV_CLOCKS_EVENT_REASONS``; dcgm-exporter
  exports whichever its counters CSV names (go-dcgm maps both to 112) and uses the new one
  itself from 4.0.0-4.0.1 (3.3.9-3.6.1 and older: the old one). The node label is ``Hostname``
  in every release up to 4.5.3-4.8.2; dcgm-exporter commit d5e5f51 (May 2026) renamed it ``hostname``.
  The 1.x namespace (``-o`` / ``DCGM_EXPORTER_USE_OLD_NAMESPACE`` with
  ``etc/1.x-compatibility-metrics.csv``) names the series ``dcgm_gpu_temp``, ``dcgm_xid_errors``,
  ... instead of ``DCGM_FI_*``: a target that serves only those is one whose GPUs a live
  diagnosis does not read.

Facts (facts/kinds/live.py): ``scrape_target_down``, ``exporter_absent``,
``stale_series``, ``exporter_variant``; each quotes the query and its row.
"""
from __future__ import annotations

import re
from collections import defaultdict

from stethoscope.facts.live.dcgm import LiveFacts
from stethoscope.facts.kinds.live import ExporterAbsent, ExporterVariant, ScrapeTargetDown, StaleSeries
from stethoscope.facts.model import Evidence

#: the series every target of an exporter serves: every GPU has a temperature (``dcgm_gpu_temp``
#: in dcgm-exporter's 1.x namespace); every node_exporter its build info
ANCHORS = {"dcgm-exporter": ("DCGM_FI_DEV_GPU_TEMP", "dcgm_gpu_temp"), "node_exporter": ("node_exporter_build_info", "node_infiniband_state_id")}
#: job names that say which exporter they scrape, for targets down the whole window (no anchor)
JOB_NAME = {"dcgm-exporter": re.compile(r"dcgm", re.I), "node_exporter": re.compile(r"node", re.I)}
#: names of one field in different exporter versions, newest first: the aspect of each
#: (``exporter_variant.aspect``) and the names
RENAMED = {"metric_name": ("DCGM_FI_DEV_CLOCKS_EVENT_REASONS", "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS"),
           "metric_namespace": ("DCGM_FI_DEV_GPU_TEMP", "dcgm_gpu_temp")}
#: the node label of dcgm-exporter, newest first
NODE_LABELS = ("hostname", "Hostname")
#: what each aspect's names are, for the finding's text
ASPECT_MEANS = {"metric_name": "the clock event reasons metric (DCGM field 112)",
                "metric_namespace": "the metric namespace (DCGM_FI_* names, or dcgm_* in the 1.x namespace)",
                "node_label": "the node label"}


def query(window_s: int) -> str:
    w = f"[{int(window_s)}s]"
    dcgm = ANCHORS["dcgm-exporter"][0]
    jobs = " or ".join([f"group by (job) (last_over_time({m}{w}))" for ms in ANCHORS.values() for m in ms]
                       + ['group by (job) (up{job=~"(?i).*(dcgm|node).*"})'])
    tag = lambda q, t: f'label_replace({q}, "steth_stack", "{t}", "", "")'  # noqa: E731
    parts = [
        tag(f"(avg_over_time(up{w}) and on (job) ({jobs}))", "up_mean"),
        tag(f"(last_over_time(up{w}) and on (job) ({jobs}))", "up_last"),
    ]
    for m in (m for ms in ANCHORS.values() for m in ms):
        parts.append(tag(f'label_replace(count by (job, instance) (last_over_time({m}{w})), "steth_metric", "{m}", "", "")', "series"))
        parts.append(tag(f'label_replace(count by (job, instance) (last_over_time({m}{w}) unless {m}), "steth_metric", "{m}", "", "")', "stale"))
    for names in RENAMED.values():
        # the name copied into a label of its own: `or` matches label sets without __name__, so two
        # names of one target would otherwise be one row
        by_name = f'count by (job, instance, __name__) ({{__name__=~"{"|".join(names)}"}})'
        parts.append(tag(f'label_replace({by_name}, "steth_name", "$1", "__name__", "(.+)")', "name"))
    for lab in NODE_LABELS:
        parts.append(tag(f'label_replace(count by (job, instance) ({dcgm}{{{lab}!=""}}), "steth_label", "{lab}", "", "")', "label"))
    return " or ".join(parts)


def _host(instance: str) -> str:
    """``node3:9400`` -> ``node3``; ``[fe80::1]:9100`` -> ``fe80::1``."""
    if instance.startswith("["):
        return instance[1:].split("]", 1)[0]
    return instance.rsplit(":", 1)[0] if instance.count(":") == 1 else instance


def stack_facts(rows: list[dict], shown: str, at: float, window_s: int, out: LiveFacts, judge_absence: bool = True) -> None:
    """Facts of the answer to :func:`query` (``shown``: the query as sent, for the evidence).
    ``judge_absence`` off (a ``--selector`` narrows what the server shows): no exporter is
    called absent, since the selector may be what hides it."""
    rows = sorted(rows, key=lambda r: sorted(r.get("metric", {}).items()))

    def ev(i: int, r: dict) -> Evidence:
        lab = ",".join(f'{k}="{v}"' for k, v in sorted(r.get("metric", {}).items()))
        return Evidence(path=shown, line=i, text=f"{{{lab}}} {r['value'][1]} @{at:.0f}")

    up: dict[tuple[str, str], dict[str, tuple[float, int, dict]]] = defaultdict(dict)
    series: dict[str, dict[tuple[str, str], tuple[int, int, dict]]] = defaultdict(dict)  # metric -> target -> (n, row)
    stale: dict[tuple[str, str], list[tuple[str, int, int, dict]]] = defaultdict(list)
    names: dict[str, list[tuple[str, int, dict]]] = defaultdict(list)  # variant -> (target, row)
    labels: dict[str, list[tuple[str, int, dict]]] = defaultdict(list)
    for i, r in enumerate(rows, start=1):
        lab = r.get("metric", {})
        kind, target = lab.get("steth_stack"), (lab.get("job", ""), lab.get("instance", ""))
        value = float(r["value"][1])
        if kind in ("up_mean", "up_last"):
            up[target][kind] = (value, i, r)
        elif kind == "series":
            series[lab.get("steth_metric", "")][target] = (int(value), i, r)
        elif kind == "stale":
            stale[target].append((lab.get("steth_metric", ""), int(value), i, r))
        elif kind == "name":
            names[lab.get("steth_name") or lab.get("__name__", "")].append((target[1], i, r))
        elif kind == "label":
            labels[lab.get("steth_label", "")].append((target[1], i, r))

    served = {e: {t for m in ms for t in series.get(m, {})} for e, ms in ANCHORS.items()}
    exporter_jobs = {e: {j for j, _ in ts} for e, ts in served.items()}

    def exporter_of(job: str) -> str | None:
        for e, jobs in exporter_jobs.items():
            if job in jobs:
                return e
        return next((e for e, rx in JOB_NAME.items() if rx.search(job)), None)

    for (job, instance), got in sorted(up.items()):
        last, mean = got.get("up_last"), got.get("up_mean")
        if last is None or mean is None or (last[0] >= 1 and mean[0] >= 1):
            continue
        value, i, r = last if last[0] < 1 else mean
        out.add(ScrapeTargetDown, _host(instance), ev(i, r), f"{job}/{instance}", job=job, instance=instance,
                exporter=exporter_of(job), down_now=last[0] < 1, up_fraction=round(mean[0], 4), window_s=window_s)

    targets = {e: served[e] | {t for t in up if exporter_of(t[0]) == e} for e in ANCHORS}
    for e, ts in targets.items() if judge_absence else ():
        if not ts:
            out.add(ExporterAbsent, "*", Evidence(path=shown, line=0, text=f"no {' or '.join(ANCHORS[e])} series and no up series of a {e} job "
                                                                            f"in the {window_s} s before {at:.0f}"),
                    e, exporter=e, scope="fleet", host=None, anchor=ANCHORS[e][0], window_s=window_s)
    gpu_hosts = {_host(i) for _, i in targets["dcgm-exporter"]}
    if gpu_hosts and judge_absence:  # hosts with a node_exporter and no dcgm-exporter, in a fleet that has GPUs
        for (job, instance) in sorted(targets["node_exporter"]):
            host = _host(instance)
            if host not in gpu_hosts:
                gpu_hosts.add(host)  # once per host
                src = up.get((job, instance), {}).get("up_last") or next(
                    (series[m][(job, instance)] for m in ANCHORS["node_exporter"] if (job, instance) in series.get(m, {})), None)
                i, r = (src[1], src[2]) if src else (0, {"metric": {"job": job, "instance": instance}, "value": [at, "1"]})
                out.add(ExporterAbsent, host, ev(i, r), f"dcgm-exporter/{host}", exporter="dcgm-exporter", scope="node",
                        host=host, anchor=ANCHORS["dcgm-exporter"][0], window_s=window_s)

    for (job, instance), items in sorted(stale.items()):
        if (up.get((job, instance), {}).get("up_last") or (1.0,))[0] < 1:
            continue  # the target is down: that is the finding, not its series
        for metric, n, i, r in items:
            total = series.get(metric, {}).get((job, instance), (n,))[0]
            out.add(StaleSeries, _host(instance), ev(i, r), f"{job}/{instance}/{metric}", job=job, instance=instance,
                    metric=metric, stale=n, series=total, gone=n >= total, window_s=window_s)

    for aspect, variants, table in [*((a, v, names) for a, v in RENAMED.items()), ("node_label", NODE_LABELS, labels)]:
        present = [v for v in variants if table.get(v)]
        for v in present:
            hits = sorted(table[v], key=lambda h: h[0])
            _, i, r = hits[0]
            mine = {h[0] for h in hits}
            only = mine - {h[0] for o in present if o != v for h in table[o]}  # a target may serve both names
            out.add(ExporterVariant, "*", ev(i, r), f"{aspect}/{v}", exporter="dcgm-exporter", aspect=aspect, variant=v,
                    means=ASPECT_MEANS[aspect], newest=v == variants[0], instances=len(mine), only_instances=len(only),
                    example_instances=", ".join(sorted(only or mine)[:5]), mixed=len(present) > 1,
                    others=", ".join(o for o in present if o != v))
