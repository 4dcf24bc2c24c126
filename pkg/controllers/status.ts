// Writing a controller's status over the newest object: the status is the controller's alone, so a
// conflict (someone else wrote the object meanwhile) is resolved by reading the object again.
import { isConflict, type Client, type Obj } from "../client/client.ts";
import type { ResourceRef } from "../client/resources.ts";

const RETRIES = 3;

/** PUTs obj's status through the status subresource, re-reading the object on conflicts; returns what was written. */
export async function writeStatus(client: Client, r: ResourceRef, obj: Obj): Promise<Obj> {
  const { name, namespace } = obj.metadata;
  for (let i = 0; ; i++) {
    const target = i === 0 ? obj : { ...(await client.get(r, name, { namespace })), status: obj.status };
    try {
      return await client.update(r, target, { subresource: "status" });
    } catch (e) {
      if (!isConflict(e) || i >= RETRIES) throw e;
    }
  }
}
