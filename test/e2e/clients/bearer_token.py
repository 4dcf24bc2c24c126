#!/usr/bin/python3
"""Calls the server with the bearer token of a kubeconfig through the official Python client
(python3-kubernetes): lists namespaces, then asks TokenReview about TOKEN. Prints one JSON line:
{"namespaces": [...], "review": {...status}} or, when the server refuses, {"error": reason, "status": code}.

usage: bearer_token.py KUBECONFIG TOKEN
"""
import json
import sys


def main():
    kubeconfig, token = sys.argv[1:3]
    from kubernetes import client, config
    from kubernetes.client.rest import ApiException

    config.load_kube_config(config_file=kubeconfig)
    try:
        names = [n.metadata.name for n in client.CoreV1Api().list_namespace().items]
        review = client.AuthenticationV1Api().create_token_review(client.V1TokenReview(spec=client.V1TokenReviewSpec(token=token)))
        print(json.dumps({"namespaces": names, "review": review.status.to_dict()}))
    except ApiException as e:
        print(json.dumps({"error": e.reason, "status": e.status}))


if __name__ == "__main__":
    main()
