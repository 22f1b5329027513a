package report

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/relock-go/relock/bench/internal/harness"
)

// ScaleSeries is one line of the scale figure: the scale runs of one
// build, labelled.
type ScaleSeries struct {
	Label string
	Runs  []harness.ManyLocksResult
}

// WriteScalePlot writes base.png and base.svg: the settle and the drain
// against the number of locks, one line per series, under title.
func WriteScalePlot(base, title string, series []ScaleSeries) ([]string, error) {
	var locks []int
	for _, s := range series {
		for _, x := range s.Runs {
			if !slices.Contains(locks, x.Locks) {
				locks = append(locks, x.Locks)
			}
		}
	}
	slices.Sort(locks)
	var row []*plot.Plot
	for i, pn := range []struct {
		title string
		value func(harness.ManyLocksResult) float64
	}{
		{"Settle: every waiter asleep", func(x harness.ManyLocksResult) float64 { return x.SettleSeconds }},
		{"Drain: every waiter locked and unlocked", func(x harness.ManyLocksResult) float64 { return x.DrainSeconds }},
	} {
		p := plot.New()
		p.Title.Text = pn.title
		p.X.Label.Text = "locks (3 waiters each)"
		p.Y.Label.Text = "seconds"
		p.Y.Min = 0
		p.X.Scale = plot.LogScale{}
		var ticks []plot.Tick
		for _, n := range locks {
			ticks = append(ticks, plot.Tick{Value: float64(n), Label: strconv.Itoa(n)})
		}
		p.X.Tick.Marker = plot.ConstantTicks(ticks)
		p.Add(plotter.NewGrid())
		for j, s := range series {
			var pts plotter.XYs
			for _, x := range s.Runs {
				pts = append(pts, plotter.XY{X: float64(x.Locks), Y: pn.value(x)})
			}
			if len(pts) == 0 {
				continue
			}
			slices.SortFunc(pts, func(a, b plotter.XY) int { return int(a.X - b.X) })
			l, sc, err := plotter.NewLinePoints(pts)
			if err != nil {
				return nil, err
			}
			l.Color, sc.Color = plotutil.Color(j), plotutil.Color(j)
			sc.Shape = plotutil.Shape(j)
			l.Width = vg.Points(2)
			p.Add(l, sc)
			if i == 0 {
				p.Legend.Add(s.Label, l, sc)
			}
		}
		p.Legend.Top, p.Legend.Left = true, true
		row = append(row, p)
	}
	return writeFigure(base, [][]*plot.Plot{row}, 30*vg.Centimeter, 12*vg.Centimeter, title)
}

// writeScalePlot writes the run's own scale figure, when it has scale runs
// at two lock counts or more.
func (r *Report) writeScalePlot(dir string) ([]string, error) {
	if len(r.Scale) < 2 {
		return nil, nil
	}
	title := fmt.Sprintf("Many locks, 3 waiters each on %d Clients, one redis-server, %d CPUs", r.Config.Clients, r.Machine.CPUs)
	return WriteScalePlot(filepath.Join(dir, "scale"), title, []ScaleSeries{{Label: "relock", Runs: r.Scale}})
}
