-- One type's states over time (trends, the type page, the dashboard's sparklines) read as one
-- index range instead of every key of every commit in the range. With the primary key appended
-- this is (type_id, environment_id, commit_id, scenario_id). It costs about 15 bytes a key state
-- (a passing check's share of the disk); the queries at 10M checks need it.
CREATE INDEX leak_states_by_type ON leak_states(type_id, environment_id);
