import { describe, expect, it } from 'vitest';
import {
  fitLogisticModel,
  fitTinyNetwork,
  logisticModelJson,
  logisticProbability,
  networkProbability,
  parseLogisticModel,
  parseTinyNetwork,
  tinyNetworkJson,
} from './small-classifiers.js';

/** Points on a grid; `label` decides each. */
function grid(label: (x: number, y: number) => number): { rows: number[][]; labels: number[] } {
  const rows: number[][] = [];
  const labels: number[] = [];
  for (let i = 0; i < 20; i++) {
    for (let j = 0; j < 20; j++) {
      const x = i / 19;
      const y = 10 + j;
      rows.push([x, y]);
      labels.push(label(x, y));
    }
  }
  return { rows, labels };
}

const accuracy = (p: (x: number[]) => number, rows: number[][], labels: number[]): number =>
  rows.filter((r, i) => (p(r) >= 0.5 ? 1 : 0) === labels[i]).length / rows.length;

describe('logistic model', () => {
  it('fits a linearly separable set and survives its JSON form', () => {
    const { rows, labels } = grid((x, y) => (x + (y - 10) / 19 > 1 ? 1 : 0));
    const model = fitLogisticModel(['x', 'y'], rows, labels, { steps: 1500 });
    expect(accuracy((r) => logisticProbability(model, r), rows, labels)).toBeGreaterThan(0.97);
    const back = parseLogisticModel(JSON.parse(JSON.stringify(logisticModelJson(model))), ['x', 'y'], 'test');
    expect(logisticProbability(back, [0.3, 22])).toBeCloseTo(logisticProbability(model, [0.3, 22]), 4);
    expect(() => parseLogisticModel({ ...logisticModelJson(model), features: ['y', 'x'] }, ['x', 'y'], 'test')).toThrow(/features/);
  });
});

describe('tiny network', () => {
  it('fits what a line cannot (a band), reproducibly, and survives its JSON form', () => {
    const { rows, labels } = grid((x) => (x > 0.3 && x < 0.7 ? 1 : 0));
    const linear = fitLogisticModel(['x', 'y'], rows, labels, { steps: 1500 });
    expect(accuracy((r) => logisticProbability(linear, r), rows, labels)).toBeLessThan(0.8);
    const net = fitTinyNetwork(['x', 'y'], rows, labels, { hidden: 6, seed: 3, steps: 1500, rate: 0.05 });
    expect(accuracy((r) => networkProbability(net, r), rows, labels)).toBeGreaterThan(0.95);
    const again = fitTinyNetwork(['x', 'y'], rows, labels, { hidden: 6, seed: 3, steps: 1500, rate: 0.05 });
    expect([...again.out]).toEqual([...net.out]);
    const back = parseTinyNetwork(JSON.parse(JSON.stringify(tinyNetworkJson(net))), ['x', 'y'], 'test');
    expect(networkProbability(back, [0.5, 15])).toBeCloseTo(networkProbability(net, [0.5, 15]), 4);
    expect(() => parseTinyNetwork({ ...tinyNetworkJson(net), hidden: [[1]] }, ['x', 'y'], 'test')).toThrow(/hidden row 0/);
  });
});
