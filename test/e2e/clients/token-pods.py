#!/usr/bin/python3
"""Lists a namespace's pods through the official Python client (python3-kubernetes) with a bearer token
and prints one JSON line: {"items": N} on success, {"status": HTTP status} when the server refused.

usage: token-pods.py SERVER CA_FILE TOKEN NAMESPACE
"""
import json
import sys


def main():
    server, ca_file, token, namespace = sys.argv[1:5]
    from kubernetes import client

    conf = client.Configuration()
    conf.host = server
    conf.ssl_ca_cert = ca_file
    conf.api_key = {"authorization": token}
    conf.api_key_prefix = {"authorization": "Bearer"}
    v1 = client.CoreV1Api(client.ApiClient(conf))
    try:
        pods = v1.list_namespaced_pod(namespace)
        out = {"items": len(pods.items)}
    except client.exceptions.ApiException as e:
        out = {"status": e.status}
    sys.stdout.write(json.dumps(out) + "\n")


main()
