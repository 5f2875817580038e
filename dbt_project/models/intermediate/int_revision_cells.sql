-- One row per (study, cell) the study's newest `revision_scores` run declared: the Writer, Selector
-- and Scorer letters, the Scorer's model and reviewer configuration, and the scores per side.
with

newest_runs as (

    select
        study_id,
        judges
    from {{ ref('int_revision_runs') }}
    where resolved_by_asset = 'revision_scores'

),

cells as (

    select
        study_id,
        unnest(  -- noqa: AL03
            from_json(
                judges,
                '[{"cell": "VARCHAR", "writer": "VARCHAR", "selector": "VARCHAR", "scorer": "VARCHAR",
                   "scorer_model": "VARCHAR", "scorer_config": "VARCHAR", "repeats": "INTEGER"}]'
            ),
            recursive := true
        )
    from newest_runs

),

final as (

    select
        study_id || '|' || cell as revision_cell_id,
        study_id,
        cell,
        writer,
        selector,
        scorer,
        writer || selector as condition,
        scorer_model,
        scorer_config,
        repeats
    from cells

)

select * from final
