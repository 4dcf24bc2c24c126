#!/usr/bin/python3
"""Writes a Secret with stringData through the official Python client (python3-kubernetes) and prints
what the server answered at each step, as one JSON line: {"step": {"data": ..., "stringData": ...}}.

usage: secret.py KUBECONFIG NAMESPACE NAME

Steps: create (stringData a=1 over data b), read, replace (adds stringData c=3), strategic patch
(stringData d=4), JSON patch (adds /stringData e=5), list. Any exception is printed as {"error": ...}
and exits 1.
"""
import base64
import json
import sys


def main():
    kubeconfig, namespace, name = sys.argv[1:4]
    from kubernetes import client, config

    config.load_kube_config(config_file=kubeconfig)
    v1 = client.CoreV1Api()
    seen = {}

    def show(step, s):
        seen[step] = {"data": s.data, "stringData": s.string_data}

    body = client.V1Secret(metadata=client.V1ObjectMeta(name=name), string_data={"a": "1"},
                           data={"b": base64.b64encode(b"2").decode()})
    show("create", v1.create_namespaced_secret(namespace, body))
    cur = v1.read_namespaced_secret(name, namespace)
    show("read", cur)
    cur.string_data = {"c": "3"}
    show("replace", v1.replace_namespaced_secret(name, namespace, cur))
    show("patch", v1.patch_namespaced_secret(name, namespace, {"stringData": {"d": "4"}}))
    show("jsonpatch", v1.patch_namespaced_secret(name, namespace, [{"op": "add", "path": "/stringData", "value": {"e": "5"}}]))
    items = [s for s in v1.list_namespaced_secret(namespace).items if s.metadata.name == name]
    show("list", items[0])
    sys.stdout.write(json.dumps(seen) + "\n")


if __name__ == "__main__":
    try:
        main()
    except Exception as e:  # one line for the test to show
        sys.stdout.write(json.dumps({"error": f"{type(e).__name__}: {e}"}) + "\n")
        sys.exit(1)
