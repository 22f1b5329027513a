package report

import (
	"fmt"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// writeClusterPlots writes cluster.png and cluster.svg: per master, the
// release messages it handled per acquisition; and per pub/sub kind, the
// acquisitions/s and the wait p99, which must be read together (a high
// rate can come from releasers taking their lock again while others wait).
func (r *Report) writeClusterPlots(dir string) ([]string, error) {
	nodes := len(r.Cluster[0].Nodes)
	labels := make([]string, nodes)
	for i := range labels {
		labels[i] = fmt.Sprintf("master %d", i+1)
	}
	barWidth := vg.Points(18)

	perNode := newBarPlot("Release messages each master handles, per acquisition", "messages / acquisition", labels)
	kinds := make([]string, len(r.Cluster))
	for i, x := range r.Cluster {
		kinds[i] = x.PubSub
	}
	rate := newBarPlot("Acquisitions/s, all locks", "acquisitions/s", kinds)
	wait := newBarPlot("Wait p99 (cut-off waits included)", "ms", kinds)
	for i, x := range r.Cluster {
		if len(x.Nodes) != nodes {
			return nil, fmt.Errorf("cluster runs with %d and %d masters", nodes, len(x.Nodes))
		}
		vals := make(plotter.Values, nodes)
		for j, n := range x.Nodes {
			vals[j] = n.ReceivedPer
		}
		bars, err := addBars(perNode, vals, barWidth, i)
		if err != nil {
			return nil, err
		}
		bars.Offset = barWidth * vg.Length(2*i-len(r.Cluster)+1) / 2
		perNode.Legend.Add(x.PubSub+" pub/sub", bars)

		// One bar per kind: this kind's value at its own position.
		for _, panel := range []struct {
			p *plot.Plot
			v float64
		}{{rate, x.PerSecond}, {wait, x.Wait.P99}} {
			one := make(plotter.Values, len(r.Cluster))
			one[i] = panel.v
			if _, err := addBars(panel.p, one, 2*barWidth, i); err != nil {
				return nil, err
			}
		}
	}
	perNode.Y.Max = 1.3 // room for the legend above the classic bars
	perNode.Legend.Top = true

	c := r.Config
	title := fmt.Sprintf("Redis Cluster, %d masters: %d locks × %d goroutines over K=%d Clients, hold %.0f ms, %d CPUs",
		nodes, c.ClusterLocks, c.ClusterWaiters, c.Clients, c.ClusterHoldMs, r.Machine.CPUs)
	return writeFigure(filepath.Join(dir, "cluster"), [][]*plot.Plot{{perNode, rate, wait}}, 34*vg.Centimeter, 12*vg.Centimeter, title)
}

// newBarPlot returns a plot with a grid, a y axis from 0 and one nominal x
// position per label.
func newBarPlot(title, y string, labels []string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Y.Label.Text = y
	p.Y.Min = 0
	p.Add(plotter.NewGrid())
	p.NominalX(labels...)
	return p
}

// addBars adds a bar chart of vals in the i-th colour to p.
func addBars(p *plot.Plot, vals plotter.Values, width vg.Length, i int) (*plotter.BarChart, error) {
	bars, err := plotter.NewBarChart(vals, width)
	if err != nil {
		return nil, err
	}
	bars.Color = plotutil.Color(i)
	bars.LineStyle.Width = 0
	p.Add(bars)
	return bars, nil
}
