-- One row per variant of the stress suite (the newest paper_variant event per variant key), built or not,
-- with its family and edit: kind stress carries them in details_json (the [stress] experiment), and the
-- older experiments' variants join the suite under fixed names, so a study that ran them shows them on
-- its stress card: contradiction → soundness / result_contradicted, hidden_text → injection / hidden_text.
with

variants as (

    select * from {{ ref('stg_events__paper_variants') }}
    where variant_kind in ('stress', 'contradiction', 'hidden_text')
    qualify row_number() over (partition by variant_key order by recorded_at desc, paper_variant_id desc) = 1

),

final as (

    select
        variant_key,
        variant_id,
        base_paper_id,
        variant_kind,
        experiment_config,
        case variant_kind
            when 'contradiction' then 'soundness'
            when 'hidden_text' then 'injection'
            else details ->> 'family'
        end as family,
        case variant_kind
            when 'contradiction' then 'result_contradicted'
            when 'hidden_text' then 'hidden_text'
            else details ->> 'edit'
        end as edit,
        case when variant_kind = 'stress' then details -> 'params' end as params,
        case when variant_kind = 'stress' then details ->> 'problem' end as problem,
        case when variant_kind = 'stress' then try_cast(details ->> 'text_level' as boolean) end as is_text_level,
        is_built,
        -- a variant that was not built says why; one without a reason still counts as not built
        case when not is_built then coalesce(not_built_reason, 'no reason recorded') end as not_built_reason,
        recorded_for_study,
        recorded_at

    from variants

)

select * from final
