package debuglocks

import (
	"html/template"
	"time"
)

// pageTemplate renders a page. Ids and classes are the page's scraping
// interface (doc.go): keep them stable.
var pageTemplate = template.Must(template.New("page").Funcs(template.FuncMap{
	"at":    func(t time.Time) string { return t.Format("2006-01-02 15:04:05.000 MST") },
	"rfc":   func(t time.Time) string { return t.Format(time.RFC3339Nano) },
	"until": until,
}).Parse(pageHTML))

// until tells when, d from now, is: "in 3s" or "3s ago".
func until(d millis) string {
	if d < 0 {
		return (-d).String() + " ago"
	}
	return "in " + d.String()
}

const pageHTML = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Locks of {{.Client}}</title>
<style>
body { font: 14px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 1.5em; color: #1b1b1b; background: #fff; }
h1 { font-size: 1.4em; margin: 0 0 .2em; }
h2 { font-size: 1.1em; margin: 1.4em 0 .4em; }
code, .owner, .client, .name { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 13px; }
.meta { color: #555; margin: 0 0 1em; }
form { margin: 1em 0; }
input[type=text] { font: inherit; padding: .25em .4em; min-width: 24em; }
button { font: inherit; padding: .25em .8em; }
table { border-collapse: collapse; margin: .3em 0 1em; }
th, td { border: 1px solid #d0d0d0; padding: .25em .55em; text-align: left; vertical-align: top; white-space: nowrap; }
th { background: #f0f2f5; font-weight: 600; }
tbody tr:nth-child(even) { background: #fafafa; }
td.count, td.attempts, td.wakeups, td.position { text-align: right; }
tr.local td.owner::after { content: " (this client)"; color: #777; font-family: system-ui, sans-serif; }
tr.none td { color: #777; font-style: italic; }
.error { border: 1px solid #d33; background: #fdecec; color: #8a1010; padding: .6em .8em; margin: .6em 0; white-space: pre-wrap; }
dl { display: grid; grid-template-columns: max-content auto; gap: .2em 1em; margin: .4em 0 1em; }
dt { color: #555; }
dd { margin: 0; }
section#inspect { border-left: 3px solid #4a78c2; padding-left: 1em; }
.dim { color: #777; }
</style>
</head>
<body>
<h1>Locks</h1>
<p class="meta">Client <code id="client">{{.Client}}</code> at {{template "time" .Time}}
· <a id="json" href="?format=json{{with .Inspect}}&amp;name={{.Name}}{{end}}">JSON</a></p>

<form id="inspect-form" method="get">
<label for="name">Inspect a lock in Redis:</label>
<input type="text" id="name" name="name" value="{{with .Inspect}}{{.Name}}{{end}}" placeholder="lock name" autocomplete="off">
<button type="submit">Inspect</button>
</form>
{{with .Inspect}}
<section id="inspect">
<h2>Lock <code id="inspect-name">{{.Name}}</code></h2>
{{- if .Error}}
<div id="inspect-error" class="error" role="alert">{{.Error}}</div>
{{- else}}
{{- if not .Kind}}
<p id="no-lock" class="dim">Nothing of a lock of this name is in Redis.</p>
{{- end}}
<dl id="lock">
<dt>kind</dt><dd id="kind">{{or .Kind "–"}}</dd>
<dt>held</dt><dd id="held">{{if .Held}}yes{{else}}no{{end}}</dd>
<dt>mode</dt><dd id="mode">{{or .Mode "–"}}</dd>
<dt>TTL</dt><dd id="ttl">{{.TTL}}</dd>
<dt>subscribers</dt><dd id="subscribers">{{.Subscribers}}</dd>
<dt>fencing token</dt><dd id="token">{{if .Token}}{{.Token}}{{else}}–{{end}}</dd>
<dt>this client</dt><dd id="local">{{len .Local.Holds}} hold(s), {{len .Local.Waiters}} waiter(s)</dd>
</dl>
<h3>Holders ({{len .Holders}})</h3>
<table id="holders">
<thead><tr><th>owner</th><th>client</th><th>count</th><th>mode</th><th>reader TTL</th></tr></thead>
<tbody>
{{- range .Holders}}
<tr class="holder{{if .Local}} local{{end}}"><td class="owner">{{.Owner}}</td><td class="client">{{.Client}}</td><td class="count">{{.Count}}</td><td class="mode">{{or .Mode "–"}}</td><td class="ttl">{{.TTL}}</td></tr>
{{- else}}
<tr class="none"><td colspan="5">none</td></tr>
{{- end}}
</tbody>
</table>
<h3>Fair queue ({{len .Queue}})</h3>
<table id="queue">
<thead><tr><th>#</th><th>owner</th><th>mode</th><th>deadline</th><th>client</th></tr></thead>
<tbody>
{{- range .Queue}}
<tr class="queued{{if .Local}} local{{end}}"><td class="position">{{.Position}}</td><td class="owner">{{.Owner}}</td><td class="mode">{{or .Mode "–"}}</td><td class="deadline-in">{{until .DeadlineIn}} <span class="dim">({{template "time" .Deadline}})</span></td><td class="client-kind">{{if .Relock}}relock{{else}}redisson{{end}}</td></tr>
{{- else}}
<tr class="none"><td colspan="5">none</td></tr>
{{- end}}
</tbody>
</table>
{{- end}}
</section>
{{- end}}

<h2>Holds of this client ({{len .Activity.Holds}})</h2>
<table id="holds">
<thead><tr><th>name</th><th>kind</th><th>mode</th><th>owner</th><th>count</th><th>since</th><th>held for</th><th>lease</th><th>watchdog</th><th>last renewal</th><th>lease end</th></tr></thead>
<tbody>
{{- range .Activity.Holds}}
<tr class="hold"><td class="name"><a href="?name={{.Name}}">{{.Name}}</a></td><td class="kind">{{.Kind}}</td><td class="mode">{{or .Mode "–"}}</td><td class="owner">{{.Owner}}</td><td class="count">{{.Count}}</td><td class="since">{{template "time" .Since}}</td><td class="held-for">{{.HeldFor}}</td><td class="lease">{{.Lease}}</td><td class="watchdog">{{if .Watchdog}}yes{{else}}no{{end}}</td><td class="last-renewal">{{template "time" .LastRenewal}}</td><td class="lease-end">{{template "time" .LeaseEnd}}{{if not .LeaseEnd.IsZero}} <span class="dim">({{until .LeaseLeft}})</span>{{end}}</td></tr>
{{- else}}
<tr class="none"><td colspan="11">none</td></tr>
{{- end}}
</tbody>
</table>

<h2>Waiters of this client ({{len .Activity.Waiters}})</h2>
<table id="waiters">
<thead><tr><th>name</th><th>kind</th><th>mode</th><th>owner</th><th>since</th><th>waiting for</th><th>attempts</th><th>wake-ups</th></tr></thead>
<tbody>
{{- range .Activity.Waiters}}
<tr class="waiter"><td class="name"><a href="?name={{.Name}}">{{.Name}}</a></td><td class="kind">{{.Kind}}</td><td class="mode">{{or .Mode "–"}}</td><td class="owner">{{.Owner}}</td><td class="since">{{template "time" .Since}}</td><td class="waiting-for">{{.WaitingFor}}</td><td class="attempts">{{.Attempts}}</td><td class="wakeups">{{.Wakeups}}</td></tr>
{{- else}}
<tr class="none"><td colspan="8">none</td></tr>
{{- end}}
</tbody>
</table>
</body>
</html>
{{define "time"}}{{if .IsZero}}–{{else}}<time datetime="{{rfc .}}">{{at .}}</time>{{end}}{{end}}`
