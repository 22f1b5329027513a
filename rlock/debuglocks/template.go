package debuglocks

import (
	"html/template"
	"time"

	"github.com/relock-go/relock/rlock"
)

// pageTemplate renders a page. Ids and classes are the page's scraping
// interface (doc.go): keep them stable.
var pageTemplate = template.Must(template.New("page").Funcs(template.FuncMap{
	"at":    func(t time.Time) string { return t.Format("2006-01-02 15:04:05.000 MST") },
	"rfc":   func(t time.Time) string { return t.Format(time.RFC3339Nano) },
	"until": until,
	"ago":   ago,
	"rel":   func(at time.Time, text string) relTime { return relTime{at, text} },
	"kinds": func() []rlock.Kind {
		return []rlock.Kind{rlock.KindSemaphore, rlock.KindPermitSemaphore, rlock.KindCountDownLatch, rlock.KindRateLimiter}
	},
}).Parse(pageHTML))

// relTime is a time shown relative to the page's "as of" time (Text),
// with the time itself in the <time> element's datetime and title.
type relTime struct {
	At   time.Time
	Text string
}

// ago tells how long before now t was: "3s ago", or "–" for no time.
func ago(t, now time.Time) string {
	if t.IsZero() {
		return "–"
	}
	return until(millis(t.Sub(now)))
}

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
{{- with .Refresh}}
<meta http-equiv="refresh" content="{{.Seconds}}">
{{- end}}
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
<p class="meta">Client <code id="client">{{.Client}}</code>{{with .Label}} <span id="label">{{.}}</span>{{end}}
· as of <time id="as-of" datetime="{{rfc .Time}}">{{at .Time}}</time>
· <a id="json" href="?format=json{{with .Inspect}}&amp;name={{.Name}}{{with .AskedKind}}&amp;kind={{.}}{{end}}{{end}}">JSON</a>
· {{with .Refresh}}<span id="refresh">refreshed every {{.}}</span> (<a href="?{{with $.Inspect}}name={{.Name}}{{end}}">stop</a>){{else}}<a id="refresh-link" href="?refresh=5s{{with .Inspect}}&amp;name={{.Name}}{{end}}">refresh every 5s</a>{{end}}</p>

<form id="inspect-form" method="get">
<label for="name">Inspect a lock in Redis:</label>
<input type="text" id="name" name="name" value="{{with .Inspect}}{{.Name}}{{end}}" placeholder="lock name" autocomplete="off">
<select id="kind-select" name="kind" title="Redis keeps a semaphore's and a latch's count alike: say which; a rate limiter's kind refuses any other key">
{{- $asked := ""}}{{with .Inspect}}{{$asked = .AskedKind}}{{end}}
<option value=""{{if not $asked}} selected{{end}}>any lock</option>
{{- range kinds}}
<option value="{{.}}"{{if eq (print .) (print $asked)}} selected{{end}}>{{.}}</option>
{{- end}}
</select>
{{- with .Refresh}}
<input type="hidden" name="refresh" value="{{.}}">
{{- end}}
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
{{- if .Count}}
{{template "count" .}}
{{- else}}
<dl id="lock">
<dt>kind</dt><dd id="kind">{{or .Kind "–"}}</dd>
<dt>held</dt><dd id="held">{{if .Held}}yes{{else}}no{{end}}</dd>
<dt>mode</dt><dd id="mode">{{or .Mode "–"}}</dd>
<dt>TTL</dt><dd id="ttl">{{.TTL}}</dd>
<dt>subscribers</dt><dd id="subscribers">{{.Subscribers}}</dd>
<dt>fencing token</dt><dd id="token">{{if .Token}}{{.Token}}{{else}}–{{end}}</dd>
{{- if eq (print .Kind) "election"}}
<dt>leader</dt><dd id="leader">{{with .Leader}}{{template "leader" .}}{{else}}none{{end}}</dd>
{{- end}}
<dt>this client</dt><dd id="local">{{len .Local.Holds}} hold(s), {{len .Local.Waiters}} waiter(s)</dd>
</dl>
<h3>Holders ({{len .Holders}})</h3>
<table id="holders">
<thead><tr><th>owner</th><th>label</th><th>count</th><th>mode</th><th>reader TTL</th></tr></thead>
<tbody>
{{- range .Holders}}
<tr class="holder{{if .Local}} local{{end}}"><td class="owner">{{.Owner}}</td><td class="label">{{template "label" .Label}}</td><td class="count">{{.Count}}</td><td class="mode">{{or .Mode "–"}}</td><td class="ttl">{{.TTL}}</td></tr>
{{- else}}
<tr class="none"><td colspan="5">none</td></tr>
{{- end}}
</tbody>
</table>
<h3>Fair queue ({{len .Queue}})</h3>
<table id="queue">
<thead><tr><th>#</th><th>owner</th><th>label</th><th>mode</th><th>deadline</th><th>library</th></tr></thead>
<tbody>
{{- range .Queue}}
<tr class="queued{{if .Local}} local{{end}}"><td class="position">{{.Position}}</td><td class="owner">{{.Owner}}</td><td class="label">{{template "label" .Label}}</td><td class="mode">{{or .Mode "–"}}</td><td class="deadline-in">{{template "rel" (rel .Deadline (until .DeadlineIn))}}</td><td class="library">{{if .Relock}}relock{{else}}redisson{{end}}</td></tr>
{{- else}}
<tr class="none"><td colspan="6">none</td></tr>
{{- end}}
</tbody>
</table>
{{- end}}
{{- end}}
</section>
{{- end}}

<h2>Holds of this client ({{len .Activity.Holds}})</h2>
<table id="holds">
<thead><tr><th>name</th><th>kind</th><th>mode</th><th>owner</th><th>count</th><th>held for</th><th>lease</th><th>renewed</th><th>lease ends</th></tr></thead>
<tbody>
{{- range .Activity.Holds}}
<tr class="hold"><td class="name"><a href="?name={{.Name}}{{with $.Refresh}}&amp;refresh={{.}}{{end}}">{{.Name}}</a></td><td class="kind">{{.Kind}}</td><td class="mode">{{or .Mode "–"}}</td><td class="owner">{{.Owner}}</td><td class="count">{{.Count}}</td><td class="held-for">{{template "rel" (rel .Since .HeldFor.String)}}</td><td class="lease">{{.Lease}}</td><td class="renewed">{{if .Watchdog}}{{template "rel" (rel .LastRenewal (ago .LastRenewal $.Time))}}{{else}}fixed{{end}}</td><td class="lease-left">{{if .LeaseEnd.IsZero}}–{{else}}{{template "rel" (rel .LeaseEnd (until .LeaseLeft))}}{{end}}</td></tr>
{{- else}}
<tr class="none"><td colspan="9">none</td></tr>
{{- end}}
</tbody>
</table>

<h2>Leader elections of this client ({{len .Elections}})</h2>
<table id="elections">
<thead><tr><th>name</th><th>this client</th><th>leader</th><th>token</th><th>leads for</th><th>candidates</th><th>observers</th></tr></thead>
<tbody>
{{- range .Elections}}
<tr class="election{{if eq .Role "leader"}} local{{end}}"><td class="name"><a href="?name={{.Name}}{{with $.Refresh}}&amp;refresh={{.}}{{end}}">{{.Name}}</a></td><td class="role">{{.Role}}</td>
{{- if .Error}}<td class="error" colspan="4">{{.Error}}</td>{{else}}
{{- with .Leader}}<td class="leader">{{template "leader" .}}</td><td class="token">{{.Token}}</td><td class="leads-for">{{template "rel" (rel .Since .LeaderMS.String)}}</td>{{else}}<td class="leader">none</td><td class="token">–</td><td class="leads-for">–</td>{{end}}
<td class="candidates">{{.Candidates}}</td>{{end}}<td class="observers">{{.Observers}}</td></tr>
{{- else}}
<tr class="none"><td colspan="7">none</td></tr>
{{- end}}
</tbody>
</table>

<h2>Waiters of this client ({{len .Activity.Waiters}})</h2>
<table id="waiters">
<thead><tr><th>name</th><th>kind</th><th>mode</th><th>owner</th><th>waiting for</th><th>attempts</th><th>wake-ups</th><th>permits</th></tr></thead>
<tbody>
{{- range .Activity.Waiters}}
<tr class="waiter"><td class="name"><a href="?name={{.Name}}{{with $.Refresh}}&amp;refresh={{.}}{{end}}">{{.Name}}</a></td><td class="kind">{{.Kind}}</td><td class="mode">{{or .Mode "–"}}</td><td class="owner">{{or .Owner "–"}}</td><td class="waiting-for">{{template "rel" (rel .Since .WaitingFor.String)}}</td><td class="attempts">{{.Attempts}}</td><td class="wakeups">{{.Wakeups}}</td><td class="permits">{{or .Permits "–"}}</td></tr>
{{- else}}
<tr class="none"><td colspan="8">none</td></tr>
{{- end}}
</tbody>
</table>
</body>
</html>
{{define "rel"}}{{if .At.IsZero}}{{.Text}}{{else}}<time datetime="{{rfc .At}}" title="{{at .At}}">{{.Text}}</time>{{end}}{{end}}
{{define "count"}}
<dl id="count-of">
<dt>kind</dt><dd id="kind">{{.Kind}}</dd>
<dt>{{if eq (print .Kind) "semaphore" "permit-semaphore" "rate-limiter"}}available permits{{else}}count{{end}}{{if and .Rate .Rate.PerClient}} (this client's){{end}}</dt><dd id="count">{{.Count}}</dd>
{{- if eq (print .Kind) "rate-limiter"}}
<dt>rate</dt><dd id="rate">{{with .Rate}}{{.}}{{else}}none set{{end}}</dd>
{{- else}}
<dt>subscribers</dt><dd id="subscribers">{{.Subscribers}}</dd>
{{- end}}
<dt>this client</dt><dd id="local">{{len .Local.Waiters}} waiter(s)</dd>
</dl>
{{- if eq (print .Kind) "count"}}
<p id="count-kind" class="dim">Redis keeps a semaphore's permits and a latch's count alike: choose the kind to say which.</p>
{{- end}}
{{- if and .Rate .Rate.PerClient}}
<h3>Clients ({{len .Clients}} took permits; each has the rate)</h3>
<table id="rate-clients">
<thead><tr><th>client</th><th>label</th><th>available permits</th></tr></thead>
<tbody>
{{- range .Clients}}
<tr class="rate-client{{if .Local}} local{{end}}"><td class="client">{{.Client}}</td><td class="label">{{template "label" .Label}}</td><td class="available">{{.Available}}</td></tr>
{{- else}}
<tr class="none"><td colspan="3">none</td></tr>
{{- end}}
</tbody>
</table>
{{- end}}
{{- if eq (print .Kind) "permit-semaphore"}}
<h3>Leased permits ({{len .Permits}})</h3>
<table id="permits">
<thead><tr><th>id</th><th>expires</th></tr></thead>
<tbody>
{{- range .Permits}}
<tr class="permit"><td class="id"><code>{{.ID}}</code></td><td class="expires-in">{{if .Expiry.IsZero}}never{{else}}{{template "rel" (rel .Expiry .Expires)}}{{end}}</td></tr>
{{- else}}
<tr class="none"><td colspan="2">none</td></tr>
{{- end}}
</tbody>
</table>
{{- end}}
{{end}}
{{define "leader"}}<code class="value">{{.Value}}</code> <span class="dim">(<span class="owner">{{.Owner}}</span>)</span>{{end}}
{{define "label"}}{{with .}}{{.}}{{else}}<span class="dim">–</span>{{end}}{{end}}`
