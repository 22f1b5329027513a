package report

import (
	"fmt"
	"image/color"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	_ "gonum.org/v1/plot/vg/vgimg" // PNG canvases
	_ "gonum.org/v1/plot/vg/vgsvg" // SVG canvases

	"github.com/relock-go/relock/bench/internal/harness"
)

// panel is one chart of the contention figure: a metric against G.
type panel struct {
	title, y string
	log      bool
	value    func(harness.ContentionResult) float64
}

var contentionPanels = []panel{
	{"Throughput", "% of 1/(measured hold + RTT)", false, func(x harness.ContentionResult) float64 { return 100 * x.EffectiveShare }},
	{"Wait p99 (cut-off waits included)", "ms", true, func(x harness.ContentionResult) float64 { return x.Wait.P99 }},
	{"Client commands per acquisition", "commands", true, func(x harness.ContentionResult) float64 { return x.ClientCmdsPer }},
	{"Largest Client's share of acquisitions", "%", false, func(x harness.ContentionResult) float64 { return 100 * slices.Max(append(x.ClientShares, 0)) }},
}

// WritePlots writes the figures of the run into dir, as PNG and SVG: the
// contention figure (four charts against G, one line per strategy), the
// cluster figure (classic against sharded pub/sub) and the scale figure
// (settle and drain against locks). It returns the files written.
func (r *Report) WritePlots(dir string) ([]string, error) {
	var files []string
	if len(r.Contention) > 0 {
		f, err := r.writeContentionPlots(dir)
		if err != nil {
			return nil, err
		}
		files = append(files, f...)
	}
	if len(r.Cluster) > 0 {
		f, err := r.writeClusterPlots(dir)
		if err != nil {
			return nil, err
		}
		files = append(files, f...)
	}
	f, err := r.writeScalePlot(dir)
	if err != nil {
		return nil, err
	}
	return append(files, f...), nil
}

// writeContentionPlots writes contention.png and contention.svg.
func (r *Report) writeContentionPlots(dir string) ([]string, error) {
	var gs []int
	var names []string
	for _, x := range r.Contention {
		if !slices.Contains(gs, x.Goroutines) {
			gs = append(gs, x.Goroutines)
		}
		if !slices.Contains(names, x.Strategy) {
			names = append(names, x.Strategy)
		}
	}
	slices.Sort(gs)

	plots := [][]*plot.Plot{make([]*plot.Plot, 2), make([]*plot.Plot, 2)}
	for i, pn := range contentionPanels {
		p, err := r.contentionPlot(pn, gs, names, i == 0)
		if err != nil {
			return nil, err
		}
		plots[i/2][i%2] = p
	}
	title := fmt.Sprintf("One hot lock, hold %.0f ms, K=%d Clients, PING RTT %.0f µs, %d CPUs", r.Config.HoldMs, r.Config.Clients, r.Ping.P50*1000, r.Machine.CPUs)
	return writeFigure(filepath.Join(dir, "contention"), plots, 30*vg.Centimeter, 22*vg.Centimeter, title)
}

// writeFigure draws plots, a grid of rows, on a w × h page under title,
// and writes it as base.png and base.svg.
func writeFigure(base string, plots [][]*plot.Plot, w, h vg.Length, title string) ([]string, error) {
	var files []string
	for _, format := range []string{"png", "svg"} {
		c, err := draw.NewFormattedCanvas(w, h, format)
		if err != nil {
			return nil, err
		}
		dc := draw.New(c)
		tiles := draw.Tiles{Rows: len(plots), Cols: len(plots[0]), PadX: vg.Centimeter, PadY: vg.Centimeter, PadTop: vg.Millimeter * 8, PadBottom: vg.Millimeter * 3, PadLeft: vg.Millimeter * 3, PadRight: vg.Millimeter * 3}
		canvases := plot.Align(plots, tiles, dc)
		for i := range plots {
			for j := range plots[i] {
				plots[i][j].Draw(canvases[i][j])
			}
		}
		dc.FillText(draw.TextStyle{Color: color.Black, Font: font.From(plot.DefaultFont, vg.Points(12)), Handler: plot.DefaultTextHandler, XAlign: draw.XCenter},
			vg.Point{X: w / 2, Y: h - vg.Millimeter*4}, title)
		path := base + "." + format
		f, err := os.Create(path)
		if err != nil {
			return nil, err
		}
		if _, err := c.WriteTo(f); err != nil {
			f.Close()
			return nil, err
		}
		if err := f.Close(); err != nil {
			return nil, err
		}
		files = append(files, path)
	}
	return files, nil
}

// contentionPlot draws one panel: pn's metric against G, one line per
// strategy, with the legend when legend is set.
func (r *Report) contentionPlot(pn panel, gs []int, names []string, legend bool) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = pn.title
	p.X.Label.Text = "goroutines G"
	p.Y.Label.Text = pn.y
	p.X.Scale = plot.LogScale{}
	var ticks []plot.Tick
	for _, g := range gs {
		ticks = append(ticks, plot.Tick{Value: float64(g), Label: strconv.Itoa(g)})
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	if pn.log {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	}
	p.Add(plotter.NewGrid())
	for i, name := range names {
		var pts plotter.XYs
		for _, g := range gs {
			for _, x := range r.Contention {
				if x.Strategy == name && x.Goroutines == g {
					v := pn.value(x)
					if pn.log && v <= 0 {
						continue // no point on a log axis
					}
					pts = append(pts, plotter.XY{X: float64(g), Y: v})
				}
			}
		}
		if len(pts) == 0 {
			continue
		}
		l, s, err := plotter.NewLinePoints(pts)
		if err != nil {
			return nil, err
		}
		l.Color, s.Color = plotutil.Color(i), plotutil.Color(i)
		l.Dashes = plotutil.Dashes(i / 7)
		s.Shape = plotutil.Shape(i)
		if name == "relock" {
			l.Width = vg.Points(2.5)
		}
		p.Add(l, s)
		if legend {
			p.Legend.Add(name, l, s)
		}
	}
	if legend {
		p.Legend.Top = false
		p.Legend.Left = true
		p.Legend.TextStyle.Font.Size = vg.Points(8)
	}
	return p, nil
}
