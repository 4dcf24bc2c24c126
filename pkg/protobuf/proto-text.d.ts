// `.proto` files are embedded as text: `import text from "x.proto" with { type: "text" }`.
declare module "*.proto" {
  const text: string;
  export default text;
}
