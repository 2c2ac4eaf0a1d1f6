-- One type's states over time (trends, the type page, the dashboard's sparklines) read as one
-- index range instead of every key of every commit in the range.
CREATE INDEX leak_states_by_type ON leak_states(type_id, environment_id, commit_id, scenario_id);
