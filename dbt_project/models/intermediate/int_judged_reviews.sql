-- One row per (study, judge, judge configuration, review, repeat) for the judges that judge one
-- review at a time (the quality_judges not pooled, each at its review_step: depth units, novelty
-- claims, constructiveness comments), holding the
-- newest judgment of that repeat. A review the study lists with no judgment under the study's
-- configuration gets one row with repeat_index null and null_reason 'not_judged'.
with

scopes as (

    select * from {{ ref('int_judging_scopes') }}
    where
        subject_kind = 'review'
        and judge in (
            {%- for judge in per_review_judges() -%}
                '{{ judge.judge }}'{{ ", " if not loop.last }}
            {%- endfor -%}
        )

),

judgments as (

    select * from {{ ref('int_judgments_latest') }}
    where
        {%- for judge in per_review_judges() %}
            {{ "or " if not loop.first }}(judge = '{{ judge.judge }}' and step = '{{ judge.review_step }}')
        {%- endfor %}

),

review_keys as (

    select * from {{ ref('int_judging_review_keys') }}

),

joined as (

    select
        scopes.study_id,
        scopes.judge,
        scopes.judge_config,
        scopes.judge_provider,
        scopes.judge_model,
        scopes.repeats,
        scopes.subject_key as review_key,
        judgments.repeat_index,
        judgments.judgment_id,
        judgments.step,
        judgments.status,
        judgments.null_reason as judgment_null_reason,
        judgments.units,
        judgments.inputs,
        coalesce(judgments.paper_id, review_keys.paper_id) as paper_id,
        -- what the judge read says whose review it was; the review's own event when nobody judged it
        coalesce(
            judgments.inputs ->> 'source', review_keys.source, split_part(scopes.subject_key, ':', 1)
        ) as source,
        coalesce(judgments.inputs ->> 'system', review_keys.system) as system,
        array_to_string(from_json(judgments.inputs -> 'fields', '["VARCHAR"]'), ',') as fields_used

    from scopes
    left join judgments
        on
            scopes.judge = judgments.judge
            and scopes.judge_config = judgments.judge_config
            and scopes.subject_key = judgments.subject_key
            and judgments.repeat_index between 0 and scopes.repeats - 1
    left join review_keys on scopes.subject_key = review_keys.review_key

),

final as (

    select
        concat_ws(
            '|', study_id, judge_config, review_key, coalesce(cast(repeat_index as varchar), 'none')
        ) as judged_review_id,
        * exclude (judgment_null_reason),
        judgment_id is not null as is_judged,
        case
            when judgment_id is null then 'not_judged'
            when status != 'ok' then coalesce(judgment_null_reason, 'status:' || status)
        end as null_reason

    from joined

)

select * from final
