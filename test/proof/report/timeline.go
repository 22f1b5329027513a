package report

import (
	"fmt"
	"image/color"
	"os"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/relock-go/relock/test/proof/check"
	"github.com/relock-go/relock/test/proof/history"
)

// sideColors colours each side's line.
var sideColors = map[string]color.Color{"go": color.RGBA{0, 114, 178, 255}, "java": color.RGBA{213, 94, 0, 255}}

// faultColors colours the fault kinds' spans, translucent, in the table's
// order of kinds.
var faultColors = []color.Color{
	color.NRGBA{230, 159, 0, 70}, color.NRGBA{86, 180, 233, 70}, color.NRGBA{0, 158, 115, 70},
	color.NRGBA{204, 121, 167, 80}, color.NRGBA{120, 120, 120, 90}, color.NRGBA{240, 228, 66, 90},
	color.NRGBA{0, 114, 178, 60}, color.NRGBA{213, 94, 0, 60}, color.NRGBA{128, 128, 0, 70},
	color.NRGBA{100, 60, 20, 60}, color.NRGBA{30, 30, 30, 50},
}

// Timeline draws the run as a PNG at path: acquisitions per second of
// each side, the faults' spans shaded (a fault without duration, a kill,
// as a line), violations marked with red triangles along the top and
// measured findings with orange circles below them.
func Timeline(path string, run *history.Run, res *check.Result) error {
	p := plot.New()
	secs := float64(max(run.LastT, run.End)-run.Start) / 1e9
	p.Title.Text = fmt.Sprintf("%d processes, %.0f s: %s acquisitions, %d violations, %d measured, %d unchecked",
		len(run.Procs), secs, thousands(int64(acquisitions(res))), res.Violations, res.Measured, res.Unchecked)
	p.X.Label.Text = "seconds since the start"
	p.Y.Label.Text = "acquisitions per second"
	p.X.Min, p.X.Max = 0, max(secs, 1)
	p.Add(plotter.NewGrid())

	bins := int(secs) + 1
	rates := map[string][]float64{}
	for i := range run.Ops {
		o := &run.Ops[i]
		if o.Kind != history.OpAcquire || o.Outcome != history.OutcomeOK {
			continue
		}
		side := run.Procs[o.Proc].Side
		if rates[side] == nil {
			rates[side] = make([]float64, bins)
		}
		if b := int((o.Return - run.Start) / 1e9); b >= 0 && b < bins {
			rates[side][b]++
		}
	}
	top := 1.0
	for _, r := range rates {
		top = max(top, slices.Max(r))
	}
	top *= 1.15
	p.Y.Min, p.Y.Max = 0, top

	legend := plot.NewLegend()
	legend.TextStyle.Font.Size = vg.Points(9)
	sp := &spans{run: run}
	p.Add(sp)
	for _, side := range []string{"go", "java"} {
		r := rates[side]
		if r == nil {
			continue
		}
		pts := make(plotter.XYs, len(r))
		for i, v := range r {
			pts[i] = plotter.XY{X: float64(i) + 0.5, Y: v}
		}
		l, err := plotter.NewLine(pts)
		if err != nil {
			return err
		}
		l.Color, l.Width = sideColors[side], vg.Points(1.2)
		p.Add(l)
		legend.Add(side+" acquisitions", l)
	}
	if err := mark(p, &legend, run, res, check.Violation, top*0.96, draw.PyramidGlyph{}, color.RGBA{200, 0, 0, 255}, "violation"); err != nil {
		return err
	}
	if err := mark(p, &legend, run, res, check.Measured, top*0.90, draw.CircleGlyph{}, color.RGBA{230, 120, 0, 255}, "measured"); err != nil {
		return err
	}
	for i, kind := range sp.kinds() {
		legend.Add(kind, swatch{faultColors[i%len(faultColors)]})
	}
	p.Y.Tick.Marker = plot.TickerFunc(func(min, max float64) []plot.Tick {
		ticks := plot.DefaultTicks{}.Ticks(min, max)
		for i := range ticks {
			if ticks[i].Label != "" {
				ticks[i].Label = fmt.Sprintf("%.0f", ticks[i].Value)
			}
		}
		return ticks
	})
	return save(p, legend, path)
}

func acquisitions(res *check.Result) int {
	n := 0
	for _, r := range res.Names {
		n += r.Acquisitions
	}
	return n
}

// mark adds a scatter of the findings of severity sev at height y.
func mark(p *plot.Plot, legend *plot.Legend, run *history.Run, res *check.Result, sev check.Severity, y float64, shape draw.GlyphDrawer, c color.Color, label string) error {
	var pts plotter.XYs
	for _, f := range res.Findings {
		if f.Severity == sev {
			pts = append(pts, plotter.XY{X: float64(f.At-run.Start) / 1e9, Y: y})
		}
	}
	if len(pts) == 0 {
		return nil
	}
	s, err := plotter.NewScatter(pts)
	if err != nil {
		return err
	}
	s.GlyphStyle = draw.GlyphStyle{Color: c, Radius: vg.Points(3.5), Shape: shape}
	p.Add(s)
	legend.Add(label, s)
	return nil
}

// legendWidth is the margin on the right that holds the legend.
const legendWidth = 5 * vg.Centimeter

// save draws p, with legend in a margin on its right, as a PNG at path.
func save(p *plot.Plot, legend plot.Legend, path string) error {
	c := vgimg.PngCanvas{Canvas: vgimg.New(34*vg.Centimeter, 13*vg.Centimeter)}
	dc := draw.New(c)
	p.Draw(draw.Crop(dc, 0, -legendWidth, 0, 0))
	legend.Top, legend.Left = true, true
	legend.YOffs = -vg.Centimeter
	legend.Draw(draw.Crop(dc, dc.Max.X-legendWidth+vg.Millimeter*4, 0, 0, 0))
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := c.WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// spans draws the faults' spans across the plot's height.
type spans struct{ run *history.Run }

// kinds returns the fault kinds injected, in the table's order.
func (s *spans) kinds() []string {
	var kinds []string
	for _, f := range s.run.Faults {
		if !slices.Contains(kinds, f.Kind) {
			kinds = append(kinds, f.Kind)
		}
	}
	slices.SortFunc(kinds, func(a, b string) int { return rank(a) - rank(b) })
	return kinds
}

// Plot implements plot.Plotter.
func (s *spans) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	kinds := s.kinds()
	for _, f := range s.run.Faults {
		col := faultColors[slices.Index(kinds, f.Kind)%len(faultColors)]
		x0 := trX(float64(f.Start-s.run.Start) / 1e9)
		x1 := trX(float64(f.End-s.run.Start) / 1e9)
		if x1-x0 < vg.Points(1.5) {
			opaque := color.NRGBAModel.Convert(col).(color.NRGBA)
			opaque.A = 200
			c.StrokeLine2(draw.LineStyle{Color: opaque, Width: vg.Points(1.5)}, x0, c.Min.Y, x0, c.Max.Y)
			continue
		}
		c.FillPolygon(col, c.ClipPolygonX([]vg.Point{{X: x0, Y: c.Min.Y}, {X: x1, Y: c.Min.Y}, {X: x1, Y: c.Max.Y}, {X: x0, Y: c.Max.Y}}))
	}
}

// swatch is a legend's square of a fault kind's colour.
type swatch struct{ c color.Color }

// Thumbnail implements plot.Thumbnailer.
func (s swatch) Thumbnail(c *draw.Canvas) {
	opaque := color.NRGBAModel.Convert(s.c).(color.NRGBA)
	opaque.A = uint8(min(255, int(opaque.A)*2))
	c.FillPolygon(opaque, []vg.Point{{X: c.Min.X, Y: c.Min.Y}, {X: c.Max.X, Y: c.Min.Y}, {X: c.Max.X, Y: c.Max.Y}, {X: c.Min.X, Y: c.Max.Y}})
}
