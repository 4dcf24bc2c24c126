// The review kinds this server answers from its own authentication and authorization, by group/resource.
import type { Reviews } from "../../api/handlers/review.ts";
import type { AuthOptions } from "../config.ts";
import type { AuthFilters } from "../filter.ts";
import type { Rbac } from "../rbac/service.ts";
import { accessReviews } from "./access.ts";
import { ruleResolver } from "./rules.ts";
import { selfSubjectReview } from "./self.ts";

export function authReviews(o: AuthOptions, auth: AuthFilters, rbac: Rbac): Reviews {
  const reviews: Reviews = new Map([["authentication.k8s.io/selfsubjectreviews", selfSubjectReview]]);
  for (const [resource, r] of Object.entries(accessReviews(auth.authz, ruleResolver(o.authorizationModes, rbac)))) {
    reviews.set(`authorization.k8s.io/${resource}`, r);
  }
  return reviews;
}
