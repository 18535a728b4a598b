import { useId } from 'react';

import type { Layer } from '@/api/types';

import { LAYER_LABEL } from '../labels';
import { CATEGORY_LABEL, type EventCategory, NO_FILTER, type TimelineFilter } from '../lib/group';

const LAYERS = Object.keys(LAYER_LABEL) as Layer[];
const CATEGORIES = Object.keys(CATEGORY_LABEL) as EventCategory[];

interface TimelineFiltersProps {
  filter: TimelineFilter;
  actors: string[];
  onChange: (filter: TimelineFilter) => void;
}

/** Layer, kind of event and who: the three ways to narrow the timeline. */
export function TimelineFilters({ filter, actors, onChange }: TimelineFiltersProps) {
  const id = useId();
  const active = filter.layer !== 'all' || filter.category !== 'all' || filter.actor !== 'all';
  return (
    <fieldset className="timeline__filters">
      <legend className="visually-hidden">Filter the timeline</legend>
      <div className="timeline__filter">
        <label htmlFor={`${id}-layer`}>Layer</label>
        <select
          id={`${id}-layer`}
          value={filter.layer}
          onChange={(e) => {
            onChange({ ...filter, layer: LAYERS.find((l) => l === e.target.value) ?? 'all' });
          }}
        >
          <option value="all">All layers</option>
          {LAYERS.map((layer) => (
            <option key={layer} value={layer}>
              {LAYER_LABEL[layer]}
            </option>
          ))}
        </select>
      </div>
      <div className="timeline__filter">
        <label htmlFor={`${id}-kind`}>Kind</label>
        <select
          id={`${id}-kind`}
          value={filter.category}
          onChange={(e) => {
            onChange({ ...filter, category: CATEGORIES.find((c) => c === e.target.value) ?? 'all' });
          }}
        >
          <option value="all">Everything</option>
          {CATEGORIES.map((category) => (
            <option key={category} value={category}>
              {CATEGORY_LABEL[category]}
            </option>
          ))}
        </select>
      </div>
      <div className="timeline__filter">
        <label htmlFor={`${id}-actor`}>Who</label>
        <select
          id={`${id}-actor`}
          value={filter.actor}
          onChange={(e) => {
            onChange({ ...filter, actor: e.target.value });
          }}
        >
          <option value="all">Anyone</option>
          {actors.map((actor) => (
            <option key={actor} value={actor}>
              {actor}
            </option>
          ))}
        </select>
      </div>
      {active && (
        <button
          type="button"
          className="link-button"
          onClick={() => {
            onChange(NO_FILTER);
          }}
        >
          Clear filters
        </button>
      )}
    </fieldset>
  );
}
