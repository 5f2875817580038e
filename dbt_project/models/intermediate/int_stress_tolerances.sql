-- One row per study: the [stress] tolerances its stress cards are judged against, as the study's newest
-- experiment_stress resolution recorded them with its judge ("tolerances": {name: value} in the judge's
-- entry of judges_json); a tolerance the study does not declare takes the default (docs/experiments/
-- stress.md): invariance_max_noise_units 1.0, sensitivity_min_noise_units 1.0, noise_k 1.96, n_bootstrap
-- 2000. is_declared says which the study set itself.
with

studies as (

    select distinct study_id from {{ ref('int_study_papers') }}

),

entries as (

    select
        study_id,
        resolved_at,
        unnest(from_json(judges, '["JSON"]')) as entry

    from {{ ref('int_studies_latest') }}
    where resolved_by_asset = 'experiment_stress'

),

declared as (

    select
        study_id,
        entry -> 'tolerances' as tolerances

    from entries
    where (entry -> 'tolerances') is not null
    qualify row_number() over (partition by study_id order by resolved_at desc) = 1

),

final as (

    select
        studies.study_id,
        coalesce(try_cast(declared.tolerances ->> 'invariance_max_noise_units' as double), 1.0)
            as invariance_max_noise_units,
        coalesce(try_cast(declared.tolerances ->> 'sensitivity_min_noise_units' as double), 1.0)
            as sensitivity_min_noise_units,
        coalesce(try_cast(declared.tolerances ->> 'noise_k' as double), 1.96) as noise_k,
        coalesce(try_cast(declared.tolerances ->> 'n_bootstrap' as integer), 2000) as n_bootstrap,
        declared.tolerances is not null as is_declared

    from studies
    left join declared on studies.study_id = declared.study_id

)

select * from final
