#!/usr/bin/python3
"""Server-side applies a ConfigMap with the official Python client's dynamic client (python3-kubernetes)
and prints one JSON line: {"data": ...} with the object's data after the apply, or {"error": ...}.

usage: apply.py KUBECONFIG NAMESPACE NAME FIELD_MANAGER VALUE FORCE

FORCE is "yes" to pass force_conflicts=True (which the client sends as `force=True`), anything else to
pass none. A refused apply prints {"error": ..., "status": HTTP status} and exits 0.
"""
import json
import sys


def main():
    kubeconfig, namespace, name, manager, value, force = sys.argv[1:7]
    from kubernetes import config, dynamic
    from kubernetes.client import api_client
    from kubernetes.dynamic.exceptions import DynamicApiError

    client = dynamic.DynamicClient(api_client.ApiClient(configuration=config.load_kube_config(config_file=kubeconfig)))
    configmaps = client.resources.get(api_version="v1", kind="ConfigMap")
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": namespace}, "data": {"k": value}}
    try:
        # sent as text: this client's REST layer encodes only JSON content types itself
        out = configmaps.server_side_apply(body=json.dumps(body), name=name, namespace=namespace, field_manager=manager,
                                           force_conflicts=True if force == "yes" else None)
        print(json.dumps({"data": out.to_dict()["data"]}))
    except DynamicApiError as e:
        print(json.dumps({"error": e.summary(), "status": e.status}))


if __name__ == "__main__":
    main()
