// The console page's entry point (bundled by Bun from index.html).
import { render } from "preact";
import { App } from "./app.tsx";

render(<App />, document.getElementById("app")!);
