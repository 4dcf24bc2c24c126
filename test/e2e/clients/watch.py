#!/usr/bin/python3
"""Watches one namespace's configmaps with the official Python client (python3-kubernetes) and prints
one JSON line per event: {"type": ..., "name": ..., "resourceVersion": ..., "data": ...}.

usage: watch.py KUBECONFIG NAMESPACE TIMEOUT_SECONDS [LABEL_SELECTOR]

Prints {"ready": true} once the client is configured, and {"end": true} when the server closes the
stream (after TIMEOUT_SECONDS); exits 0 then. Any exception is printed as {"error": ...} and exits 1.
"""
import json
import sys


def emit(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def main():
    kubeconfig, namespace, timeout = sys.argv[1], sys.argv[2], int(sys.argv[3])
    selector = sys.argv[4] if len(sys.argv) > 4 else None
    from kubernetes import client, config, watch

    config.load_kube_config(config_file=kubeconfig)
    v1 = client.CoreV1Api()
    kwargs = {"timeout_seconds": timeout}
    if selector:
        kwargs["label_selector"] = selector
    emit({"ready": True})
    w = watch.Watch()
    for event in w.stream(v1.list_namespaced_config_map, namespace, **kwargs):
        obj = event["object"]
        emit({
            "type": event["type"],
            "name": obj.metadata.name,
            "resourceVersion": obj.metadata.resource_version,
            "data": obj.data,
        })
    emit({"end": True})


if __name__ == "__main__":
    try:
        main()
    except Exception as e:  # reported to the test, which shows it
        emit({"error": "%s: %s" % (type(e).__name__, e)})
        sys.exit(1)
