/** The status page's stylesheet. Colours keep WCAG AA contrast (4.5:1 or more) on white. */
export const statusCss = `
:root { color-scheme: light; font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1a1a1a; background: #ffffff; }
body { margin: 0 auto; padding: 1rem 1.5rem 3rem; max-width: 60rem; line-height: 1.45; }
h1 { margin: 0.5rem 0 0; font-size: 1.6rem; }
h2 { margin: 2rem 0 0.5rem; font-size: 1.2rem; border-bottom: 1px solid #767676; padding-bottom: 0.2rem; }
table { border-collapse: collapse; width: 100%; font-size: 0.95rem; }
th, td { text-align: left; padding: 0.25rem 0.6rem 0.25rem 0; border-bottom: 1px solid #d0d0d0; }
.number { text-align: right; font-variant-numeric: tabular-nums; }
.failed { color: #a40000; font-weight: 600; }
.succeeded { color: #1f6b2a; }
.warning { color: #8a4b00; font-weight: 600; }
code { font-size: 0.95em; }
label { display: block; font-weight: 600; margin: 0.5rem 0 0.25rem; }
input { font: inherit; padding: 0.4rem; border: 1px solid #595959; border-radius: 3px; width: min(30rem, 100%); }
button { font: inherit; padding: 0.4rem 0.9rem; margin-top: 0.5rem; border: 1px solid #0b5cad; border-radius: 3px; background: #0b5cad; color: #ffffff; cursor: pointer; }
button:hover { background: #084887; }
:focus-visible { outline: 3px solid #b35c00; outline-offset: 2px; }
#token-error { color: #a40000; }
#feed { font-family: ui-monospace, "SFMono-Regular", Menlo, monospace; font-size: 0.9rem; padding-left: 4rem; }
.chart { display: block; margin: 0.5rem 0 1rem; }
.chart text { font-size: 12px; fill: #1a1a1a; }
footer { margin-top: 2rem; }
`;
