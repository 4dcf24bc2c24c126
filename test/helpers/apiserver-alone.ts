// `kite apiserver` with the server's own namespace controller and garbage collector off, as `kite up` runs
// it beside a controller-manager: tests of the controller-manager's versions use it to show those alone do
// the work. Spawned as startServer's launcher (`bun apiserver-alone.ts apiserver --flags...`).
import { launchApiServer } from "./launch-apiserver.ts";

await launchApiServer({ namespaceAndGCControllers: false });
