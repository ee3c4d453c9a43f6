/** The one stylesheet: readable, light and dark by prefers-color-scheme, no overflow on narrow screens. */
export const STYLESHEET = `
:root{color-scheme:light dark;--bg:#fff;--fg:#1a1a1a;--muted:#555;--line:#ddd;--accent:#0b57d0;--warn-bg:#fff4d6;--warn-fg:#5c4300;--badge:#eef1f5}
@media (prefers-color-scheme:dark){:root{--bg:#121417;--fg:#e8e8e8;--muted:#a8adb4;--line:#333;--accent:#8ab4f8;--warn-bg:#3a2f12;--warn-fg:#f3d58a;--badge:#252a31}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:16px/1.55 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
a{color:var(--accent)}
a:focus-visible,button:focus-visible,input:focus-visible,select:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
.skip{position:absolute;left:-999px}.skip:focus{left:1rem;top:1rem;background:var(--bg);padding:.5rem;z-index:2}
header,main,footer{max-width:52rem;margin:0 auto;padding:1rem}
header nav{display:flex;flex-wrap:wrap;gap:.75rem 1.25rem;align-items:center}
header .brand{font-weight:700;text-decoration:none;color:var(--fg)}
footer{color:var(--muted);border-top:1px solid var(--line);font-size:.9rem}
h1{font-size:1.6rem;line-height:1.25;overflow-wrap:anywhere}
h2{font-size:1.2rem}
.notice{background:var(--warn-bg);color:var(--warn-fg);padding:.6rem .8rem;border-radius:.4rem;font-size:.92rem}
.objects{list-style:none;padding:0;margin:0}
.objects>li{border-bottom:1px solid var(--line);padding:.8rem 0}
.title{font-weight:600;overflow-wrap:anywhere}
.content{white-space:pre-wrap;overflow-wrap:anywhere;word-break:break-word}
.meta{color:var(--muted);font-size:.88rem;display:flex;flex-wrap:wrap;gap:.25rem .8rem}
.badge{display:inline-block;background:var(--badge);border-radius:.3rem;padding:0 .4rem;font-size:.82rem}
.state-disputed,.state-hidden,.state-withdrawn,.state-expired{outline:1px solid var(--muted)}
.topics{display:flex;flex-wrap:wrap;gap:.35rem;list-style:none;padding:0;margin:.3rem 0}
.pager{margin:1rem 0}
form.search{display:flex;flex-wrap:wrap;gap:.5rem}
form.search input[type=search]{flex:1 1 14rem;min-width:0;padding:.45rem;font:inherit}
pre{white-space:pre-wrap;overflow-wrap:anywhere}
mark{background:#ffe58a;color:#1a1a1a;border-radius:.15rem}
form.search label{flex-basis:100%;font-weight:600}
form.search select,form.search button{font:inherit;padding:.4rem .6rem}
ol.objects{counter-reset:none}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.2rem 1rem}
dl.facts dd{margin:0;overflow-wrap:anywhere}
@media (max-width:30rem){dl.facts{grid-template-columns:1fr}dl.facts dt{font-weight:600}}
.scroll{overflow-x:auto;max-width:100%}
table{border-collapse:collapse;width:100%}
table.params{table-layout:fixed;min-width:34rem}
table.params col.property{width:30%}table.params col.type{width:20%}table.params col.required{width:12%}
th,td{text-align:left;vertical-align:top;border-bottom:1px solid var(--line);padding:.35rem .5rem;overflow-wrap:anywhere}
pre.code{background:var(--badge);padding:.6rem .8rem;border-radius:.4rem;font-size:.88rem}
code,a.out{overflow-wrap:anywhere}
.verdict-working{background:#d7f5dd;color:#0b4a1a}
.verdict-needs-auth{background:#fff0c2;color:#5c4300}
.verdict-unverified{background:var(--badge);color:var(--fg)}
@media (prefers-color-scheme:dark){.verdict-working{background:#163d20;color:#c6f0cf}.verdict-needs-auth{background:#3a2f12;color:#f3d58a}}
ul.plain{list-style:none;padding:0}
`;
