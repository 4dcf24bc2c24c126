#!/usr/bin/python3
"""Reads and writes the scale subresource with the official Python client (python3-kubernetes).

usage: scale.py KUBECONFIG NAMESPACE

Expects a Deployment "web", a StatefulSet "db" and a ReplicationController "rc" in NAMESPACE, each with 2
replicas. Prints one JSON object: what each call returned (spec.replicas, status.selector), or
{"error": ...} and exits 1.
"""
import json
import sys


def main():
    kubeconfig, ns = sys.argv[1], sys.argv[2]
    from kubernetes import client, config

    config.load_kube_config(config_file=kubeconfig)
    apps, core = client.AppsV1Api(), client.CoreV1Api()
    out = {}
    s = apps.read_namespaced_deployment_scale("web", ns)
    out["read"] = {"kind": s.kind, "replicas": s.spec.replicas, "selector": s.status.selector}
    s = apps.patch_namespaced_deployment_scale("web", ns, {"spec": {"replicas": 5}})
    out["patch"] = s.spec.replicas
    s = apps.read_namespaced_stateful_set_scale("db", ns)
    s.spec.replicas = 4
    out["replace"] = apps.replace_namespaced_stateful_set_scale("db", ns, s).spec.replicas
    stale = apps.read_namespaced_stateful_set_scale("db", ns)
    stale.metadata.resource_version = "1"
    try:
        apps.replace_namespaced_stateful_set_scale("db", ns, stale)
        out["stale"] = "accepted"
    except client.exceptions.ApiException as e:
        out["stale"] = e.status
    out["rc"] = core.patch_namespaced_replication_controller_scale("rc", ns, {"spec": {"replicas": 3}}).spec.replicas
    print(json.dumps(out))


if __name__ == "__main__":
    try:
        main()
    except Exception as e:  # noqa: BLE001 - reported to the test
        print(json.dumps({"error": f"{type(e).__name__}: {e}"}))
        sys.exit(1)
