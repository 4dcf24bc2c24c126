// authentication.k8s.io SelfSubjectReview (v1 and v1beta1): who the server takes the caller to be, as
// `kubectl auth whoami` shows it. Newer than v1.21; served because today's clients ask for it.
import type { Review } from "../../api/handlers/review.ts";

export const selfSubjectReview: Review = (obj, { user }) => {
  const userInfo: Record<string, unknown> = { username: user.name };
  if (user.uid) userInfo.uid = user.uid;
  if (user.groups.length) userInfo.groups = user.groups;
  if (user.extra && Object.keys(user.extra).length) userInfo.extra = user.extra;
  const creationTimestamp = new Date().toISOString().replace(/\.\d{3}Z$/, "Z");
  return { ...obj, metadata: { ...obj.metadata, creationTimestamp }, status: { userInfo } };
};
