// Stylesheets imported from modules are bundled by Bun into the page's CSS.
declare module "*.css";
