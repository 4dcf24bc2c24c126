#!/usr/bin/python3
"""An operator's loop over a custom kind with the official Python client (python3-kubernetes).

usage: operator.py KUBECONFIG NAMESPACE

Expects the CronTab kind (stable.example.com/v1, status subresource) to be served. Lists the CronTabs in
NAMESPACE and writes each one's status (status.replicas = spec.replicas) through the status subresource,
then watches from the list's resourceVersion and does the same for each ADDED one, until it has seen the
MODIFIED event of its own status write of "second". Prints one JSON object: what it saw and wrote, or
{"error": ...} and exits 1.
"""
import json
import sys


def main():
    kubeconfig, ns = sys.argv[1], sys.argv[2]
    from kubernetes import client, config, watch

    config.load_kube_config(config_file=kubeconfig)
    api = client.CustomObjectsApi()
    group, version, plural = "stable.example.com", "v1", "crontabs"
    listed = api.list_namespaced_custom_object(group, version, ns, plural)
    out = {"listed": [o["metadata"]["name"] for o in listed["items"]], "events": [], "patched": {}}

    def reconcile(obj):
        name = obj["metadata"]["name"]
        patched = api.patch_namespaced_custom_object_status(
            group, version, ns, plural, name, {"status": {"replicas": obj["spec"].get("replicas", 0)}})
        out["patched"][name] = patched["status"]

    for obj in listed["items"]:
        reconcile(obj)
    w = watch.Watch()
    for ev in w.stream(api.list_namespaced_custom_object, group, version, ns, plural,
                       resource_version=listed["metadata"]["resourceVersion"], timeout_seconds=20):
        obj, name = ev["object"], ev["object"]["metadata"]["name"]
        out["events"].append([ev["type"], name])
        if ev["type"] == "ADDED":
            reconcile(obj)
        if ev["type"] == "MODIFIED" and name == "second" and obj.get("status"):
            w.stop()
    out["final"] = api.get_namespaced_custom_object(group, version, ns, plural, "second")["status"]
    print(json.dumps(out))


if __name__ == "__main__":
    try:
        main()
    except Exception as e:  # noqa: BLE001 - reported to the test
        print(json.dumps({"error": f"{type(e).__name__}: {e}"}))
        sys.exit(1)
