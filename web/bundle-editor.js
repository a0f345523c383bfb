// Bundles editor.js (CodeMirror 6 and its language modes, from node_modules)
// into one browser script with esbuild. Usage: node bundle-editor.js OUT.js
// (run in web/; CMake does it at build time).
const esbuild = require("esbuild");
const path = require("path");

const out = process.argv[2];
if (!out) {
  console.error("usage: node bundle-editor.js OUT.js");
  process.exit(2);
}
esbuild.buildSync({
  entryPoints: [path.join(__dirname, "editor.js")],
  bundle: true,
  format: "iife",
  minify: true,
  target: ["es2020"],
  legalComments: "inline",
  outfile: out,
  logLevel: "warning",
});
